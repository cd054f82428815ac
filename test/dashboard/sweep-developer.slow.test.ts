/** The page sweep (./sweep.ts) of the developer's pages: the overview, keys, extensions, an extension, a bundle, long ids. */
import { buildBinary } from "../binary/helpers";
import { launchBrowser } from "../helpers/browser";
import { describeSweep, startSweep } from "./sweep";

describeSweep("developer", () => startSweep(buildBinary(), launchBrowser()));
