/** The page sweep (./sweep.ts): every page of the dashboard, in every state, on one served binary and one browser. */
import { buildBinary } from "../binary/helpers";
import { launchBrowser } from "../helpers/browser";
import { describeSweep, startSweep } from "./sweep";

describeSweep(() => startSweep(buildBinary(), launchBrowser()));
