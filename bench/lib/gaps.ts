/** Why a missed target is missed and what would close it, from what was measured and investigated. */
import type { BenchResults, TargetCheck } from "./report";

export function explainGap(id: TargetCheck["id"], r: BenchResults): string {
  switch (id) {
    case "cold_start":
      return "to be investigated.";
    case "get_ratio":
      return "to be investigated.";
    case "upload_speed":
      return "to be investigated.";
    case "upload_rss":
      return "to be investigated.";
    case "rss_growth":
      return "to be investigated.";
  }
  void r;
}
