// First: relaunches the process with the platform's V8 flags before anything else loads.
import "@hangar/shared/node-flags";
import { runServiceMain } from "@hangar/shared";
import { registryService } from "./index";

runServiceMain(() => registryService());
