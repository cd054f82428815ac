/**
 * The bench's sections, in the order they run and appear in latest.md. Adding one is one line here: a module
 * exporting a BenchSection (bench/lib/results.ts) with its run, its write-up and its targets.
 */
import type { BenchSection } from "../lib/results";
import { coldStart } from "./cold-start";
import { dashboard } from "./dashboard";
import { hostileUploads } from "./hostile-uploads";
import { installsScale } from "./installs-scale";
import { largeFixture } from "./large-fixture";
import { memory } from "./memory";
import { routes } from "./routes";
import { snapshots } from "./snapshots";
import { testLoopBun } from "./test-loop-bun";
import { testLoopNode } from "./test-loop-node";
import { upload } from "./upload";

export const SECTIONS: BenchSection[] = [
  coldStart,
  routes,
  upload,
  hostileUploads,
  memory,
  testLoopBun,
  testLoopNode,
  snapshots,
  installsScale,
  largeFixture,
  dashboard,
];
