import { relaunchWithPlatformFlags } from "./node-flags";

// Imported for this effect, as the first import of every entry point (`@hangar/shared/node-flags`),
// so the relaunch happens before the rest of the program loads: see node-flags.ts.
relaunchWithPlatformFlags();
