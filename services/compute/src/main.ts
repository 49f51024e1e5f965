import { runServiceMain } from "@hangar/shared";
import { computeService } from "./index";

runServiceMain(() => computeService());
