/** The page sweep (./sweep.ts) of the admin tabs: review queue, limit requests, overrides, status, clock, faults, state. */
import { buildBinary } from "../binary/helpers";
import { launchBrowser } from "../helpers/browser";
import { describeSweep, startSweep } from "./sweep";

describeSweep("admin", () => startSweep(buildBinary(), launchBrowser()));
