/** The shape of one bench run's results (bench/results/latest.json): what the report and the gap notes read. */
import type { ColdStartRow } from "../sections/cold-start";
import type { DashboardResult } from "../sections/dashboard";
import type { MemoryResult } from "../sections/memory";
import type { ThroughputResult } from "../sections/throughput";
import type { UploadResult } from "../sections/upload";
import type { Settings } from "./settings";
import type { Environment } from "./tools";

export interface BenchResults {
  environment: Environment;
  settings: Settings;
  sections: {
    coldStart?: ColdStartRow[];
    throughput?: ThroughputResult;
    upload?: UploadResult;
    uploadError?: string;
    memory?: MemoryResult;
    dashboard?: DashboardResult;
  };
  totalSeconds?: number;
  loadAvgAtEnd?: number[];
  targets?: TargetCheck[];
}

export interface TargetCheck {
  id: "cold_start" | "get_ratio" | "upload_speed" | "upload_rss" | "rss_growth";
  target: string;
  measured: string;
  met: boolean | null;
}
