import { runServiceMain } from "@hangar/shared";
import { registryService } from "./index";

runServiceMain(() => registryService());
