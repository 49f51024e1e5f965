import { startIdleCollection } from "./idle-collection";
import { relaunchWithPlatformFlags } from "./node-flags";

// Imported for these effects, as the first import of every entry point (`@hangar/shared/node-flags`),
// so the relaunch happens before the rest of the program loads (see node-flags.ts), and the process
// that runs then gives memory back once it goes idle after work (see idle-collection.ts).
relaunchWithPlatformFlags();
startIdleCollection();
