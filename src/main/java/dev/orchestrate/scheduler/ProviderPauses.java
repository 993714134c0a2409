package dev.orchestrate.scheduler;

import dev.orchestrate.config.Config;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent profiles a provider's limit paused, for one run: read from the state at its start,
 * written back at each change (so a restarted run and every runner of a shared state honour a
 * pause), decided by {@link LimitPolicy}. Used on the scheduler thread only.
 */
final class ProviderPauses {
  private static final Logger log = LoggerFactory.getLogger(ProviderPauses.class);

  private final AgentPauses store;
  private final LimitPolicy policy;
  private final Map<String, AgentPauses.Pause> pauses = new LinkedHashMap<>();
  /** The pauses whose end was already announced (a pause is asked about every round). */
  private final java.util.Set<AgentPauses.Pause> announced = new java.util.HashSet<>();
  /** How often the store is read again while a pause is in force ({@link #reread}). */
  static final java.time.Duration REREAD_EVERY = java.time.Duration.ofSeconds(2);
  private Instant lastRead;
  /** When each profile's last strike was counted, this run: the start of its current wave. */
  private final Map<String, Instant> struck = new java.util.HashMap<>();

  ProviderPauses(AgentPauses store, LimitPolicy policy) {
    this.store = store;
    this.policy = policy;
  }

  /**
   * Reads the pauses recorded by earlier runs and forgets those over by {@code now}. Returns why
   * this run must halt before it starts any work: a usage limit still in force for a profile the
   * run would use while {@code on_usage_limit} is halt.
   */
  Optional<LimitPolicy.Decision> start(String profile, Instant now, boolean haltOnUsageLimit) {
    for (AgentPauses.Pause p : store.all()) {
      if (p.activeAt(now)) {
        pauses.put(p.profile(), p);
      } else {
        store.clear(p.profile());
      }
    }
    AgentPauses.Pause mine = pauses.get(profile);
    if (mine != null && haltOnUsageLimit && mine.kind() == OutcomeClass.USAGE_LIMIT) {
      String when = mine.until() == null ? "it did not say when it resets" : "until " + policy.clock(mine.until(), now);
      return Optional.of(new LimitPolicy.Decision(mine, HaltReason.USAGE_LIMIT, profile + " is paused by its usage "
          + "limit (" + when + "): agent.on_usage_limit is halt, so this run starts nothing; run again after the "
          + "reset, or set it to wait"));
    }
    return Optional.empty();
  }

  /**
   * The pauses in force at the run's start, each said in words: which profile, why, until when, and
   * what the run does meanwhile (issue 44: a run started during a pause printed nothing until it
   * ended, hours with a real limit).
   */
  Map<AgentPauses.Pause, String> inForce(Config config, Instant now) {
    Map<AgentPauses.Pause, String> said = new LinkedHashMap<>();
    for (AgentPauses.Pause p : pauses.values()) {
      if (!p.activeAt(now)) {
        continue;
      }
      Instant end = p.end();
      String fallback = fallbackName(config, p.profile(), now);
      said.put(p, p.profile() + " is paused by its " + p.kind().key().replace('_', ' ') + " until "
          + Session.WAIT_TIME.format(end) + " (" + p.strikes() + (p.strikes() == 1 ? " strike" : " strikes")
          + (p.message().isEmpty() ? "" : ": " + Quote.line(p.message(), 120)) + "); "
          + (fallback != null ? fallback + " takes its phases meanwhile"
              : "this run starts its phases after that, and other work meanwhile")
          + "; orchestrate agents resume " + p.profile() + " ends the pause now");
    }
    return said;
  }

  /** Whether {@code profile} must wait at {@code now}; a pause that is over is forgotten. */
  boolean paused(String profile, Instant now) {
    AgentPauses.Pause p = pauses.get(profile);
    if (p == null) {
      return false;
    }
    if (p.activeAt(now)) {
      return true;
    }
    if (announced.add(p)) {
      log.info("{}: the pause for its {} is over; work starts again", profile, p.kind().key().replace('_', ' '));
    }
    return false; // kept (with its strikes) until the profile works again or fails again
  }

  /**
   * Reads the store again, at most every {@link #REREAD_EVERY}, while a pause is in force: a pause
   * {@code orchestrate agents resume} cleared (or another runner's clearing, as its profile worked)
   * ends here too, and a pause another runner of a shared state recorded is honoured. Returns the
   * profiles whose pause was cleared.
   */
  List<String> reread(Instant now) {
    if (!anyPaused(now) || (lastRead != null && now.isBefore(lastRead.plus(REREAD_EVERY)))) {
      return List.of();
    }
    lastRead = now;
    Map<String, AgentPauses.Pause> stored = new LinkedHashMap<>();
    for (AgentPauses.Pause p : store.all()) {
      stored.put(p.profile(), p);
    }
    List<String> cleared = new java.util.ArrayList<>();
    for (AgentPauses.Pause p : List.copyOf(pauses.values())) {
      if (p.activeAt(now) && !stored.containsKey(p.profile())) {
        pauses.remove(p.profile());
        struck.remove(p.profile());
        cleared.add(p.profile());
        log.debug("{}: its pause is no longer in the state", p.profile());
      }
    }
    for (AgentPauses.Pause p : stored.values()) {
      AgentPauses.Pause mine = pauses.get(p.profile());
      if (p.activeAt(now) && (mine == null || !mine.activeAt(now) || p.until() != null && mine.until() != null
          && p.until().isAfter(mine.until()))) {
        pauses.put(p.profile(), p);
      }
    }
    return cleared;
  }

  /** The earliest moment a pause in force ends, if any is in force (null until: never, by itself). */
  Optional<Instant> nextEnd(Instant now) {
    return pauses.values().stream().filter(p -> p.activeAt(now) && p.until() != null).map(AgentPauses.Pause::until)
        .min(Instant::compareTo);
  }

  /** Whether any profile waits at {@code now}. */
  boolean anyPaused(Instant now) {
    return pauses.values().stream().anyMatch(p -> p.activeAt(now));
  }

  /**
   * An attempt of {@code profile} that started at {@code startedAt} ended in a provider's failure:
   * the decision, with its pause recorded. An attempt that started before the profile's last strike
   * was refused in that wave: one strike for all the jobs a limit meets together, and a decision
   * with neither pause nor message when it changes nothing.
   */
  LimitPolicy.Decision failed(String profile, ProviderFailure failure, Instant startedAt, Instant now) {
    Instant last = struck.get(profile);
    boolean ofLastWave = last != null && !startedAt.isAfter(last);
    if (ofLastWave && !pauses.containsKey(profile) && failure.kind().isLimit()) {
      // Refused in a wave that is over: an attempt started after it got through (worked() ended the
      // pause) while this one still ran. Its refusal is older news than that answer, so it adds no
      // strike and no pause; its item is tried again, and a limit still in force strikes anew then.
      return new LimitPolicy.Decision(null, null, null);
    }
    boolean sameWave = ofLastWave && pauses.containsKey(profile);
    LimitPolicy.Decision d = policy.onFailure(profile, failure, pauses.get(profile), sameWave, now);
    if (!sameWave) {
      struck.put(profile, now);
    }
    if (d.pause() != null && d.pause().equals(pauses.get(profile))) {
      // one more job of the same wave: nothing new to record or to say (once per pause)
      return new LimitPolicy.Decision(null, d.halt(), null);
    }
    if (d.pause() != null) {
      pauses.put(profile, d.pause());
      store.put(d.pause());
    }
    return d;
  }

  /**
   * An attempt of {@code profile} that started at {@code startedAt} got through to its provider:
   * if it started after the pause began, the limit is over, and so are its pause and strikes. (An
   * attempt already running when the limit was met, which then succeeds, proves nothing.) Says
   * whether a pause ended.
   */
  boolean worked(String profile, Instant startedAt) {
    AgentPauses.Pause p = pauses.get(profile);
    if (p != null && startedAt.isAfter(p.since())) {
      pauses.remove(profile);
      store.clear(profile);
      return true;
    }
    return false;
  }

  /**
   * Whether a phase that would use {@code profile} first has a fallback that is not paused: then a
   * usage limit of {@code profile} pauses it instead of halting the run.
   */
  boolean fallbackFor(Config config, String profile, Instant now) {
    return fallbackName(config, profile, now) != null;
  }

  /** The first fallback of {@code profile} that is not paused, or null. */
  private String fallbackName(Config config, String profile, Instant now) {
    for (Pipeline pipeline : config.pipelines().values()) {
      for (PhaseDef phase : pipeline.allPhases()) {
        List<String> names = pipeline.profilesFor(phase);
        if (!config.profile(names.get(0)).profileName().equals(profile)) {
          continue;
        }
        for (String other : names.subList(1, names.size())) {
          if (!paused(config.profile(other).profileName(), now)) {
            return config.profile(other).profileName();
          }
        }
      }
    }
    return null;
  }
}
