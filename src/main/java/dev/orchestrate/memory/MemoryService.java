package dev.orchestrate.memory;

import java.time.Clock;
import java.util.List;

/** {@link ProjectMemory} over a {@link MemoryRepository}. */
public final class MemoryService implements ProjectMemory {
  /** How many recent episodes are considered for the boot context before the budget applies. */
  static final int RECENT_EPISODES = 50;

  private final MemoryRepository repository;
  private final Clock clock;
  private final int bootContextChars;

  public MemoryService(MemoryRepository repository, Clock clock, int bootContextChars) {
    this.repository = repository;
    this.clock = clock;
    this.bootContextChars = bootContextChars;
  }

  static String outcomeId(String itemId, FinalStatus status) {
    return "outcome:" + itemId + ":" + status.key();
  }

  @Override
  public String bootContext() {
    if (bootContextChars <= 0) {
      return null;
    }
    return BootContext.render(repository.activeLoadBearing(), repository.recentPrunable(RECENT_EPISODES),
        bootContextChars);
  }

  @Override
  public void itemFinished(String itemId, String title, FinalStatus status, String detail) {
    // Rendered as "<title>: <content>", so the content starts with what the item is, not its id again.
    String text = title + (detail == null || detail.isBlank() ? "" : " — " + detail.strip());
    String id = outcomeId(itemId, status);
    repository.put(new NewMemory(id, MemoryKind.EPISODIC, itemId + " " + status.key(), text, List.of("outcome"),
        itemId).capped(), clock.instant());
    if (status == FinalStatus.DONE) {
      String blocked = outcomeId(itemId, FinalStatus.BLOCKED);
      repository.get(blocked).filter(MemoryItem::active)
          .ifPresent(b -> repository.supersede(blocked, id, clock.instant()));
    }
  }

  @Override
  public void agentMemories(String itemId, List<NewMemory> memories) {
    for (NewMemory m : memories) {
      repository.put(new NewMemory(m.id(), m.kind(), m.title(), m.content(), m.tags(),
          m.sourceItem() == null ? itemId : m.sourceItem()).capped(), clock.instant());
    }
  }
}
