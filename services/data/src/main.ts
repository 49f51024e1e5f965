import { runServiceMain } from "@hangar/shared";
import { dataService } from "./index";

runServiceMain(() => dataService());
