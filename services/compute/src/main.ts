import { runServiceMain } from "@hangar/shared";
import { computeOptionsFromConfig, computeService } from "./index";

runServiceMain((config) => computeService(computeOptionsFromConfig(config)));
