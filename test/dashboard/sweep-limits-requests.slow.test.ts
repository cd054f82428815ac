/** The page sweep (./sweep.ts) of limits, limit requests, the request log and a request, the profile. */
import { buildBinary } from "../binary/helpers";
import { launchBrowser } from "../helpers/browser";
import { describeSweep, startSweep } from "./sweep";

describeSweep("limits-requests", () => startSweep(buildBinary(), launchBrowser()));
