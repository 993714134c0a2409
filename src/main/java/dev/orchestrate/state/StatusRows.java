package dev.orchestrate.state;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The rows of {@code status}, streamed: every item with what its row shows, read a page at a time
 * and handed on as read, so that listing a million items holds one page, never the whole table
 * (issue 33). Read-only, on the store's connection.
 */
public interface StatusRows {
  /** Items a page holds: what one read loads before handing them on. */
  int PAGE = 500;

  /**
   * One item and what its {@code status} row needs: its usage over all its jobs
   * ({@link Usage#UNKNOWN} when none reported), the attempt of its latest kept job (null: none
   * kept), its worktree (null: none), and the status of each of its dependencies the state knows
   * (a dependency it does not know is absent).
   */
  record Row(ItemState item, Usage usage, Integer latestAttempt, WorkspaceRecord workspace,
      Map<String, ItemStatus> dependencies) {
    public Row {
      dependencies = Map.copyOf(dependencies);
    }
  }

  /** Hands every item to {@code each}, in backlog order, a page at a time. */
  void forEach(Consumer<Row> each);

  /** The item {@code id} and what its row needs, as {@link #forEach} hands it on; empty when the state does not know it. */
  Optional<Row> row(String id);

  /** The items {@code id}'s agents proposed as follow-ups (origin {@code id} or {@code id/phase}), in backlog order. */
  List<ItemState> followUps(String id);

  /** Hands the worktrees not integrated yet that say why (a note), by item id, to {@code each}. */
  void forEachDeferred(Consumer<WorkspaceRecord> each);

  /**
   * Which runner holds the item now, when several share the state: {@code runner ID on HOST in
   * CHECKOUT}; empty when none does, or one run holds the state.
   */
  default Optional<String> holder(String id) {
    return Optional.empty();
  }
}
