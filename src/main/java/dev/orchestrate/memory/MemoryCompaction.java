package dev.orchestrate.memory;

import java.util.List;
import java.util.Map;

/**
 * What a memory compaction did (or, for a dry run, would do).
 *
 * @param deleted          items deleted (or that would be)
 * @param keptLoadBearing  active load-bearing items, all kept
 * @param keptRecent       active prunable items kept as the most recent: min(M, K)
 * @param superseded       superseded items: not active, so neither counted as prunable nor touched
 * @param protectedBy      why load-bearing items stay: semantic, procedural, rejected-path (counts)
 * @param deletedIds       for a dry run, the ids that would go (oldest first, up to the sample limit)
 */
public record MemoryCompaction(boolean dryRun, long deleted, long keptLoadBearing, long keptRecent,
    long superseded, Map<String, Long> protectedBy, List<String> deletedIds) {

  public MemoryCompaction {
    protectedBy = Map.copyOf(protectedBy);
    deletedIds = List.copyOf(deletedIds);
  }
}
