import { runServiceMain } from "@hangar/shared";
import { assistantService } from "./index";

runServiceMain(() => assistantService());
