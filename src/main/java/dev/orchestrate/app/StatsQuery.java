package dev.orchestrate.app;

import dev.orchestrate.config.BudgetConfig;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.scheduler.Budget;
import dev.orchestrate.scheduler.BudgetWindow;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.stats.RunnerLease;
import dev.orchestrate.stats.Spending;
import dev.orchestrate.stats.StatsInput;
import dev.orchestrate.stats.StatsSource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code stats} shows: the sizes of the bounded structures, the spending, the budget windows,
 * the runners and the agent pauses; and, after the read and never in its way, one trend sample.
 */
public final class StatsQuery {
  private StatsQuery() {
  }

  /** A window of the project's budget and what every runner's jobs spent in it. */
  public record WindowSpend(BudgetWindow window, Budget budget, Usage spent, Instant from, Instant reopensAt) {
    public Double costPressure() {
      return budget.maxCostUsd() == null || spent.costUsd() == null ? null : spent.costUsd() / budget.maxCostUsd();
    }

    public Double tokenPressure() {
      Long tokens = spent.totalTokens();
      return budget.maxTokens() == null || tokens == null ? null : (double) tokens / budget.maxTokens();
    }
  }

  /** What became of the trend sample. */
  public sealed interface Sample permits NoState, NotAsked, ReadOnly, Recorded, Busy {
  }

  /** There is no state to record it in. */
  public record NoState() implements Sample {
  }

  /** None was asked for ({@code --no-sample}). */
  public record NotAsked() implements Sample {
  }

  /** The state cannot be written here ({@link StateBackend#writable()}): it was opened read-only. */
  public record ReadOnly() implements Sample {
  }

  public record Recorded(int pruned) implements Sample {
  }

  /** A busy database costs the trend one sample, not the answer. */
  public record Busy(String message) implements Sample {
  }

  public record Stats(StatsInput input, Spending spending, List<RunnerLease> runners,
      List<AgentPauses.Pause> pauses, List<WindowSpend> windows, Sample sample) {
    public Stats {
      runners = Frozen.list(runners);
      pauses = Frozen.list(pauses);
      windows = Frozen.list(windows);
    }
  }

  /**
   * Reads the state (an empty one when there is none); with {@code sample}, records a trend sample
   * where the state can be written, else opens it read-only and writes nothing.
   */
  public static Stats read(StateBackend backend, BudgetConfig project, Instant now, boolean sample) {
    if (!backend.exists()) {
      return new Stats(StatsInput.empty(now), Spending.NONE, List.of(), List.of(), List.of(), new NoState());
    }
    boolean writable = sample && backend.writable();
    try (StateStore store = backend.open(writable ? StateStore.Mode.READ_WRITE : StateStore.Mode.READ_ONLY)) {
      StatsSource stats = store.stats();
      StatsInput input = stats.read(now);
      Spending spending = stats.spending();
      List<RunnerLease> runners = stats.runners();
      List<AgentPauses.Pause> pauses = store.pauses().all();
      List<WindowSpend> windows = windows(project, store.items()::usageSince, now);
      Sample recorded;
      if (!sample) {
        recorded = new NotAsked();
      } else if (!writable) {
        recorded = new ReadOnly();
      } else {
        try {
          recorded = new Recorded(stats.recordSampleIfFree("stats", now));
        } catch (StoreException e) {
          recorded = new Busy(e.getMessage());
        }
      }
      return new Stats(input, spending, runners, pauses, windows, recorded);
    }
  }

  /** The windows of the project's budget that {@code project} limits, each with what every runner spent in it. */
  static List<WindowSpend> windows(BudgetConfig project, java.util.function.Function<Instant, Usage> spentSince,
      Instant now) {
    List<WindowSpend> windows = new ArrayList<>();
    for (BudgetWindow w : BudgetWindow.values()) {
      Double usd = w == BudgetWindow.DAY ? project.perDayUsd() : project.perWeekUsd();
      Long tokens = w == BudgetWindow.DAY ? project.tokensPerDay() : project.tokensPerWeek();
      if (usd != null || tokens != null) {
        windows.add(new WindowSpend(w, new Budget(usd, tokens), spentSince.apply(w.start(now)), w.start(now),
            w.end(now)));
      }
    }
    return windows;
  }
}
