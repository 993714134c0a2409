package dev.orchestrate.retention;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.RetentionConfig.Policy;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.retention.RetentionStore.Condenser;
import dev.orchestrate.retention.RetentionStore.Row;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * Incremental retention (docs/how-it-works.md), as pure decisions over a {@link RetentionStore}.
 * One {@link #pass} deletes, per structure, at most {@code budget} rows that are beyond its policy
 * (the oldest rows beyond {@link RetentionConfig#TARGET_PERCENT} % of {@code max_rows}, and rows
 * older than {@code max_age}), walking the table by id from the cursor the store saves, so its cost
 * depends on the budget and not on the table size. The cursor goes back to 0 when a pass reaches the
 * end of the table or the first row the policy keeps; the next pass starts again from the oldest rows.
 *
 * <p>What is never deleted: a row the store says is not prunable (a running job; a load-bearing
 * event, and the newest event; a turn its item's summary does not cover). Turns of finished items
 * that are beyond the policy but not covered yet are handed to the {@link Condenser} first:
 * summarize-then-prune, in one transaction, and nothing is deleted when it fails.
 *
 * <p>A run's pass steps aside for the scheduler (maintenance never delays an agent): between two
 * units of work — one structure's batch, or one finished item's condensing — it asks whether the
 * scheduler has work waiting, and if so stops; the {@link RetentionPass} it returns says which
 * structures are left, and {@link #resume} continues it with what is left of each budget. A pass
 * always does at least one unit before it steps aside, so maintenance makes progress however busy
 * the run is.
 */
public final class Retention {
  /** Rows looked at per structure per pass, per row the budget allows deleting. */
  static final int SCAN_FACTOR = 4;

  private final RetentionStore store;

  public Retention(RetentionStore store) {
    this.store = store;
  }

  /** One budgeted pass over every structure, to its end. */
  public RetentionPass pass(RetentionConfig config, int memoryKeepRecent, Instant now, Condenser condenser) {
    return pass(config, memoryKeepRecent, now, condenser, () -> false);
  }

  /**
   * One budgeted pass that steps aside, between two units of work, when {@code waiting} says the
   * scheduler has work; continue one that {@link RetentionPass#stepped()} with {@link #resume}.
   * Records the policies it applies, so {@code stats} shows limits without reading the config.
   */
  public RetentionPass pass(RetentionConfig config, int memoryKeepRecent, Instant now, Condenser condenser,
      BooleanSupplier waiting) {
    store.recordPolicies(config, memoryKeepRecent);
    return run(config, now, condenser, waiting, new RetentionPass(Map.of(), Set.of(), StructureName.RETAINED));
  }

  /** Continues a pass that stepped aside, with what is left of each budget; the result counts the whole pass. */
  public RetentionPass resume(RetentionPass stepped, RetentionConfig config, Instant now, Condenser condenser,
      BooleanSupplier waiting) {
    return run(config, now, condenser, waiting, stepped);
  }

  /**
   * Passes from the oldest rows until every structure is within its policy (what {@code compact}
   * runs), calling {@code progress} after each pass with the rows deleted so far.
   */
  public RetentionPass full(RetentionConfig config, int memoryKeepRecent, Instant now, Condenser condenser,
      LongConsumer progress) {
    Map<StructureName, Long> total = new EnumMap<>(StructureName.class);
    StructureName.RETAINED.forEach(s -> total.put(s, 0L));
    // A whole pass over the table from cursor 0; a pass that deletes nothing and reaches the end is the last.
    store.resetCursors();
    long sum = 0;
    while (true) {
      RetentionPass pass = pass(config, memoryKeepRecent, now, condenser);
      pass.deleted().forEach((k, v) -> total.merge(k, v, Long::sum));
      sum += pass.total();
      progress.accept(sum);
      if (pass.finished()) {
        return new RetentionPass(total, Set.of());
      }
    }
  }

  /** What one structure's batch did. */
  private record BatchResult(long deleted, boolean unfinished, boolean steppedAside) {
    static final BatchResult SPENT = new BatchResult(0, true, false); // no budget left: more next pass
  }

  private RetentionPass run(RetentionConfig config, Instant now, Condenser condenser, BooleanSupplier waiting,
      RetentionPass from) {
    Map<StructureName, Long> deleted = new EnumMap<>(StructureName.class);
    deleted.putAll(from.deleted());
    Set<StructureName> unfinished = new HashSet<>(from.unfinished());
    Units units = new Units(waiting);
    List<StructureName> left = from.left();
    for (int i = 0; i < left.size(); i++) {
      StructureName structure = left.get(i);
      if (units.stepAside()) {
        return new RetentionPass(deleted, unfinished, left.subList(i, left.size()));
      }
      int budget = (int) Math.max(0, config.budget() - deleted.getOrDefault(structure, 0L));
      BatchResult result = budget == 0 ? BatchResult.SPENT : switch (structure) {
        case JOBS -> batch(StructureName.JOBS, config.jobs(), budget, now);
        case TURNS -> turns(config.turns(), budget, now, condenser, units);
        case EVENTS -> batch(StructureName.EVENTS, config.events(), budget, now);
        case STATS_SAMPLES -> batch(StructureName.STATS_SAMPLES, config.statsSamples(), budget, now);
        default -> throw new IllegalArgumentException("no retention for " + structure);
      };
      units.done();
      deleted.merge(structure, result.deleted(), Long::sum);
      if (result.unfinished()) {
        unfinished.add(structure);
      } else {
        unfinished.remove(structure);
      }
      if (result.steppedAside()) { // stepped aside inside the structure: it comes first next time
        return new RetentionPass(deleted, unfinished, left.subList(i, left.size()));
      }
    }
    return new RetentionPass(deleted, unfinished, List.of());
  }

  /** Jobs, events and stats samples: walk from the cursor, delete what is beyond the policy and prunable. */
  private BatchResult batch(StructureName structure, Policy policy, int budget, Instant now) {
    int scan = budget * SCAN_FACTOR;
    Quota quota = new Quota(policy, store.prunableRows(structure), budget, now);
    Walk walk = Walk.over(store.scan(structure, store.cursor(structure), scan), quota, scan);
    int n = store.delete(structure, walk.ids(), walk.nextCursor, now);
    return new BatchResult(n, walk.unfinished, false);
  }

  /**
   * Turns: covered by the item's summary → deleted; not covered, of a finished item → condensed
   * (summarize-then-prune) by {@code condenser}; not covered, of an active item → kept (the sliding
   * window covers them as the item goes on). Each condensing is a unit of the pass (it may call an
   * external summarizer): before the next one, the pass may step aside; it then deletes what it
   * walked so far and leaves the cursor before the first row it did not look at.
   */
  private BatchResult turns(Policy policy, int budget, Instant now, Condenser condenser, Units units) {
    int scan = budget * SCAN_FACTOR;
    long from = store.cursor(StructureName.TURNS);
    Quota quota = new Quota(policy, store.prunableRows(StructureName.TURNS), budget, now);
    List<Row> rows = store.scan(StructureName.TURNS, from, scan);
    long condensed = 0;
    Set<String> tried = new HashSet<>();
    List<Row> walkable = new ArrayList<>();
    int looked = rows.size();
    for (int i = 0; i < rows.size(); i++) {
      Row row = rows.get(i);
      String item = row.condensable();
      if (!row.prunable() && item != null && quota.beyond(row) && !quota.spent()) {
        if (!tried.contains(item)) {
          if (units.stepAside()) {
            looked = i;
            break;
          }
          tried.add(item);
          int n = condenser.condense(item);
          units.done();
          condensed += n;
          quota.take(n);
        }
        continue; // condensed (deleted) with its item, or kept because condensing failed
      }
      if (item == null || !tried.contains(item)) {
        walkable.add(row);
      }
    }
    boolean stepped = looked < rows.size();
    Walk walk = Walk.over(walkable, quota,
        stepped || walkable.size() < rows.size() ? Integer.MAX_VALUE : scan);
    if (!walk.unfinished && !walk.boundary && (stepped || rows.size() >= scan)) {
      walk.unfinished = true;
      walk.nextCursor = looked == 0 ? from : rows.get(looked - 1).id();
    }
    int n = store.delete(StructureName.TURNS, walk.ids(), walk.nextCursor, now);
    if (condensed > 0) {
      store.markPruned(StructureName.TURNS, now);
    }
    return new BatchResult(n + condensed, walk.unfinished, stepped && !walk.boundary);
  }

  /** One pass's units of work so far in this call, and when to step aside. */
  static final class Units {
    private final BooleanSupplier waiting;
    private int done;

    Units(BooleanSupplier waiting) {
      this.waiting = waiting;
    }

    void done() {
      done++;
    }

    /** At least one unit per call, so a busy scheduler never starves maintenance. */
    boolean stepAside() {
      return done > 0 && waiting.getAsBoolean();
    }
  }

  /** Beyond its policy: among the {@code excess} oldest, or older than the age cut-off; and the budget. */
  static final class Quota {
    private long excess;
    private final long cutoff;
    private final int budget;
    private int used;

    Quota(Policy policy, long rowsNow, int budget, Instant now) {
      this.excess = policy.targetRows().isEmpty() ? 0 : Math.max(0, rowsNow - policy.targetRows().getAsInt());
      this.cutoff = policy.maxAge() == null ? Long.MIN_VALUE : now.toEpochMilli() - policy.maxAge().toMillis();
      this.budget = budget;
    }

    boolean beyond(Row row) {
      return excess > 0 || row.at() < cutoff;
    }

    void take(long rows) {
      excess -= rows;
      used += rows;
    }

    boolean spent() {
      return used >= budget;
    }
  }

  /** Which of the rows walked (oldest first, from the cursor) to delete, and where the next walk starts. */
  static final class Walk {
    final List<Row> delete = new ArrayList<>();
    long nextCursor;
    boolean unfinished;
    /** The walk met the first row the policy keeps. */
    boolean boundary;

    static Walk over(List<Row> rows, Quota quota, int scanned) {
      Walk walk = new Walk();
      for (Row row : rows) {
        if (!quota.beyond(row)) {
          walk.nextCursor = 0; // the policy keeps everything from here on: start over next time
          walk.boundary = true;
          return walk;
        }
        if (row.prunable()) {
          walk.delete.add(row);
          quota.take(1);
        }
        if (quota.spent()) {
          walk.nextCursor = row.id();
          walk.unfinished = true;
          return walk;
        }
      }
      boolean more = rows.size() >= scanned;
      walk.nextCursor = more ? rows.get(rows.size() - 1).id() : 0;
      walk.unfinished = more;
      return walk;
    }

    List<Long> ids() {
      return delete.stream().map(Row::id).toList();
    }
  }
}
