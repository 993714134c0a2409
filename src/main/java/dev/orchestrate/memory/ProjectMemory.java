package dev.orchestrate.memory;

import java.util.List;

/** What a run needs from project memory: the boot context, and recording outcomes and agents' notes. */
public interface ProjectMemory {
  /** A run without project memory (tests of other features). */
  ProjectMemory NONE = new ProjectMemory() {
    @Override
    public String bootContext() {
      return null;
    }

    @Override
    public void itemFinished(String itemId, String title, FinalStatus status, String detail) {
    }

    @Override
    public void agentMemories(String itemId, List<NewMemory> memories) {
    }
  };

  /** How an item ended. */
  enum FinalStatus {
    DONE, BLOCKED;

    public String key() {
      return this == DONE ? "done" : "blocked";
    }
  }

  /** The {@code ## Project Memory} text for the next prompt, or null when there is none. */
  String bootContext();

  /**
   * Records the episodic memory of an item reaching Done or Blocked, under an id fixed by item and
   * outcome, so recording it again replaces it; Done supersedes an earlier Blocked record.
   */
  void itemFinished(String itemId, String title, FinalStatus status, String detail);

  /** Stores the memories an agent reported in its result file. */
  void agentMemories(String itemId, List<NewMemory> memories);
}
