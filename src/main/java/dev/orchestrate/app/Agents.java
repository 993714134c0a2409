package dev.orchestrate.app;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.scheduler.BudgetWindow;
import dev.orchestrate.state.AgentActivity;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What {@code orchestrate agents} shows of each agent profile (its preset and concurrency from the
 * config; its spend in each budget window, its pause and its last outcomes from the state), and
 * {@code agents resume NAME}: a person ends a profile's pause.
 *
 * <p>A resume deletes the pause from the state, one transaction, also while a run works on it:
 * the pauses a run honours are the state's (every runner of a shared state reads them there), so
 * the run drops its own copy when it reads them again, at its next round. Nothing else is decided
 * beside a run, so nothing needs the run lease.
 */
public final class Agents {
  /** The most outcomes shown per profile: the last ten jobs say whether it works now. */
  public static final int RECENT_OUTCOMES = 10;

  private final StateBackend backend;
  private final Clock clock;

  public Agents(StateBackend backend, Clock clock) {
    this.backend = backend;
    this.clock = clock;
  }

  /**
   * One agent profile.
   *
   * @param config  the profile as configured; null for a profile the config no longer names whose
   *                pause the state still keeps
   * @param spend   what its jobs (every runner's) spent in the current day and week, per window
   * @param pause   its pause as recorded, whether or not still in force ({@link AgentPauses.Pause#activeAt}); null: none
   * @param recent  its last {@link #RECENT_OUTCOMES} ended jobs, newest first
   */
  public record Profile(String name, boolean isDefault, AgentConfig config, Map<BudgetWindow, Usage> spend,
      AgentPauses.Pause pause, List<AgentActivity.Outcome> recent) {
    public Profile {
      spend = Frozen.map(spend);
      recent = Frozen.list(recent);
    }
  }

  /**
   * Every profile, the default first, then those of the config's {@code agents:}, then any paused
   * one the config does not name; the project's budget windows as {@code stats} shows them; and
   * whether a run works on the state now.
   */
  public record Overview(Instant now, List<Profile> profiles, List<StatsQuery.WindowSpend> windows,
      int maxConcurrent, boolean runActive) {
    public Overview {
      profiles = Frozen.list(profiles);
      windows = Frozen.list(windows);
    }
  }

  /**
   * What {@code agents resume} did.
   *
   * @param cleared   the pause it deleted; empty when the profile was not paused (nothing changed)
   * @param runActive whether a run works on the state: it drops the pause at its next round
   */
  public record Resumed(String profile, Optional<AgentPauses.Pause> cleared, boolean runActive, Instant now) {
  }

  /** Reads every profile; an absent state is an empty one, and is not created. */
  public Overview overview(Config config) {
    Instant now = clock.instant();
    if (!backend.exists()) {
      return overview(config, now, List.of(), Map.of(), name -> List.of(), since -> Usage.UNKNOWN, false);
    }
    try (StateStore store = backend.openToRead()) {
      AgentActivity activity = store.agentActivity();
      Map<BudgetWindow, Map<String, Usage>> spent = new EnumMap<>(BudgetWindow.class);
      for (BudgetWindow w : BudgetWindow.values()) {
        spent.put(w, activity.usageSince(w.start(now)));
      }
      return overview(config, now, store.pauses().all(), spent,
          name -> activity.recentOutcomes(name, RECENT_OUTCOMES), store.items()::usageSince, backend.leaseHeld());
    }
  }

  private static Overview overview(Config config, Instant now, List<AgentPauses.Pause> recorded,
      Map<BudgetWindow, Map<String, Usage>> spent, Function<String, List<AgentActivity.Outcome>> recent,
      Function<Instant, Usage> projectSpentSince, boolean runActive) {
    String defaultName = config.agent().profileName();
    Map<String, AgentPauses.Pause> pauses = new LinkedHashMap<>();
    recorded.forEach(p -> pauses.put(p.profile(), p));
    Map<String, AgentConfig> all = new LinkedHashMap<>(config.profiles());
    pauses.keySet().forEach(name -> all.putIfAbsent(name, null));
    List<Profile> profiles = new ArrayList<>();
    all.forEach((name, profile) -> {
      Map<BudgetWindow, Usage> spend = new EnumMap<>(BudgetWindow.class);
      for (BudgetWindow w : BudgetWindow.values()) {
        spend.put(w, spent.getOrDefault(w, Map.of()).getOrDefault(name, Usage.UNKNOWN));
      }
      profiles.add(new Profile(name, name.equals(defaultName), profile, spend, pauses.get(name), recent.apply(name)));
    });
    return new Overview(now, profiles, StatsQuery.windows(config.budget(), projectSpentSince, now),
        config.execution().maxConcurrent(), runActive);
  }

  /**
   * Ends the pause of {@code profile}: deleted from the state in one transaction, also while a run
   * works on it (see the class comment). A profile that is not paused is left as it is.
   *
   * @throws UnknownProfileException for a name the config does not define and no pause is recorded for
   */
  public Resumed resume(Config config, String profile) {
    Instant now = clock.instant();
    boolean configured = config.profiles().containsKey(profile);
    if (!backend.exists()) {
      if (!configured) {
        throw unknown(config, profile);
      }
      return new Resumed(profile, Optional.empty(), false, now);
    }
    Optional<AgentPauses.Pause> cleared;
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      if (!configured && store.pauses().all().stream().noneMatch(p -> p.profile().equals(profile))) {
        throw unknown(config, profile);
      }
      cleared = store.pauses().remove(profile);
    }
    return new Resumed(profile, cleared, backend.leaseHeld(), now);
  }

  private static UnknownProfileException unknown(Config config, String profile) {
    return new UnknownProfileException("unknown agent profile " + Quote.value(profile) + "; the config's profiles: "
        + String.join(", ", config.profiles().keySet()) + " (see 'orchestrate agents')");
  }
}
