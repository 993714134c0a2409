package dev.orchestrate.scheduler;

import dev.orchestrate.config.OnUsageLimit;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.function.DoubleSupplier;

/**
 * What a provider's failure means for the run (docs/agents.md, "Provider limits"). Pure: the
 * time, the zone to show it in and the jitter are given.
 *
 * <ul>
 *   <li>{@code rate_limited}: the profile waits with exponential backoff and jitter (30 s doubling
 *   to 15 min, a delay the provider stated is honoured), whatever {@code on_usage_limit} says;
 *   after {@value #RATE_LIMIT_STRIKES} in a row it is treated as a usage limit whose reset is
 *   unknown.</li>
 *   <li>{@code usage_limit}: with {@code halt} (the default) the run halts, naming the reset when
 *   the agent said it; with {@code wait} the profile pauses until the reset plus a margin, and the
 *   run halts when the reset is further than {@code max_wait}, or unknown after the backoff's
 *   bound.</li>
 *   <li>{@code auth}: the run halts at once.</li>
 * </ul>
 * Limits never block an item or count as one of its attempts; the scheduler takes care of that.
 */
final class LimitPolicy {
  /** Rate-limited attempts in a row before the limit is treated as a usage limit with no known reset. */
  public static final int RATE_LIMIT_STRIKES = 6;
  static final Duration BACKOFF_BASE = Duration.ofSeconds(30);
  static final Duration BACKOFF_MAX = Duration.ofMinutes(15);
  /** Added to a stated reset: providers' clocks and rounding differ. */
  static final Duration RESET_MARGIN = Duration.ofSeconds(30);

  private final OnUsageLimit onUsageLimit;
  private final Duration maxWait;
  private final ZoneId zone;
  private final DoubleSupplier jitter;

  /**
   * @param jitter a number in [0, 1) each time it is asked, spreading a backoff by ±20 %
   */
  public LimitPolicy(OnUsageLimit onUsageLimit, Duration maxWait, ZoneId zone, DoubleSupplier jitter) {
    this.onUsageLimit = onUsageLimit;
    this.maxWait = maxWait;
    this.zone = zone;
    this.jitter = jitter;
  }

  /**
   * The decision after an attempt of {@code profile} ended in {@code failure}.
   *
   * @param pause a pause to record for the profile (null: none)
   * @param halt  the run halts for this (null: it goes on)
   * @param message what happened, for the operator: the profile, the kind and when it resets
   */
  public record Decision(AgentPauses.Pause pause, HaltReason halt, String message) {
  }

  /** As {@link #onFailure(String, ProviderFailure, AgentPauses.Pause, boolean, Instant)}, a new wave. */
  public Decision onFailure(String profile, ProviderFailure failure, AgentPauses.Pause previous, Instant now) {
    return onFailure(profile, failure, previous, false, now);
  }

  /**
   * @param previous the profile's pause before this attempt ended (its strikes), or null
   * @param sameWave the attempt started before {@code previous} was last struck: it was refused in
   *                 the same wave (concurrent jobs meet one limit together), so it adds no strike
   *                 and does not move the pause's end, unless it states a later reset (issue 44:
   *                 four jobs refused together counted as four waits)
   */
  public Decision onFailure(String profile, ProviderFailure failure, AgentPauses.Pause previous, boolean sameWave,
      Instant now) {
    OutcomeClass kind = failure.kind();
    if (kind == OutcomeClass.AUTH) {
      return new Decision(null, HaltReason.AGENT_AUTH, profile + ": " + failure.message());
    }
    if (kind == OutcomeClass.SANDBOX) {
      return new Decision(null, HaltReason.AGENT_SANDBOX, profile + ": " + failure.message());
    }
    if (sameWave && previous != null) {
      return sameWave(profile, failure, previous, now);
    }
    int strikes = previous == null ? 1 : previous.strikes() + 1;
    Instant since = previous == null ? now : previous.since();
    if (kind == OutcomeClass.RATE_LIMITED) {
      if (strikes > RATE_LIMIT_STRIKES) {
        return usageLimit(profile, failure.message() + " (rate limited " + (strikes - 1) + " times in a row)", null,
            strikes, since, now);
      }
      Instant until = now.plus(backoff(strikes, failure.resetIn()));
      return new Decision(new AgentPauses.Pause(profile, OutcomeClass.RATE_LIMITED, until, failure.message(), since,
          strikes), null,
          profile + " rate limited: waits until " + clock(until, now) + " (" + ordinal(strikes)
              + " backoff)");
    }
    if (kind == OutcomeClass.USAGE_LIMIT) {
      return usageLimit(profile, failure.message(), failure.resetsAt(now, zone).orElse(null), strikes, since, now);
    }
    throw new IllegalArgumentException(kind.key() + " is not a provider's limit");
  }

  /**
   * A further refusal of the wave {@code previous} recorded: the same strike; the pause keeps its end
   * unless this refusal states a later reset (or turns a rate limit into a usage limit with one).
   */
  private Decision sameWave(String profile, ProviderFailure failure, AgentPauses.Pause previous, Instant now) {
    Instant stated = failure.kind() == OutcomeClass.USAGE_LIMIT
        ? failure.resetsAt(now, zone).map(r -> r.plus(RESET_MARGIN)).orElse(null)
        : failure.resetIn() == null ? null : now.plus(failure.resetIn());
    Instant end = previous.end();
    OutcomeClass kind = previous.kind();
    if (stated != null && stated.isAfter(end)) {
      end = stated;
      kind = failure.kind() == OutcomeClass.USAGE_LIMIT ? OutcomeClass.USAGE_LIMIT : kind;
    }
    AgentPauses.Pause pause = new AgentPauses.Pause(profile, kind, end, previous.message(), previous.since(),
        previous.strikes());
    if (kind == OutcomeClass.USAGE_LIMIT && onUsageLimit == OnUsageLimit.HALT) {
      return new Decision(pause, HaltReason.USAGE_LIMIT, profile + " hit its usage limit; agent.on_usage_limit is "
          + "halt: run again after " + clock(end, now) + ", or set it to wait");
    }
    if (kind == OutcomeClass.USAGE_LIMIT && Duration.between(now, end).compareTo(maxWait) > 0) {
      return new Decision(pause, HaltReason.USAGE_LIMIT, profile + " hit its usage limit (resets " + clock(end, now)
          + "), further ahead than agent.max_wait (" + describe(maxWait) + ")");
    }
    return new Decision(pause, null, profile + " " + (kind == OutcomeClass.USAGE_LIMIT ? "paused" : "rate limited: "
        + "waits") + " until " + clock(end, now) + " (the same " + (kind == OutcomeClass.USAGE_LIMIT ? "limit" : "wave")
        + ")");
  }

  private Decision usageLimit(String profile, String message, Instant reset, int strikes, Instant since, Instant now) {
    Instant until = reset == null ? null : reset.plus(RESET_MARGIN);
    String when = reset == null ? "it did not say when it resets" : "resets " + clock(reset, now);
    if (onUsageLimit == OnUsageLimit.HALT) {
      if (until == null) {
        // No stated reset: the pause ends by the backoff all the same (issue 44: one that never
        // ended made every later run stop at once, while the provider already answered again).
        until = now.plus(backoff(strikes, null));
        return new Decision(new AgentPauses.Pause(profile, OutcomeClass.USAGE_LIMIT, until, message, since, strikes),
            HaltReason.USAGE_LIMIT, profile + " hit its usage limit (" + when + "); agent.on_usage_limit is halt: "
                + "run again after " + clock(until, now) + " (the " + ordinal(strikes)
                + " backoff), or set it to wait");
      }
      return new Decision(new AgentPauses.Pause(profile, OutcomeClass.USAGE_LIMIT, until, message, since, strikes),
          HaltReason.USAGE_LIMIT, profile + " hit its usage limit (" + when + "); agent.on_usage_limit is halt: run "
              + "again after the reset, or set it to wait");
    }
    if (until != null && Duration.between(now, until).compareTo(maxWait) > 0) {
      return new Decision(new AgentPauses.Pause(profile, OutcomeClass.USAGE_LIMIT, until, message, since, strikes),
          HaltReason.USAGE_LIMIT, profile + " hit its usage limit (" + when + "), further ahead than agent.max_wait ("
              + describe(maxWait) + ")");
    }
    if (until == null) {
      if (strikes > RATE_LIMIT_STRIKES) {
        Instant next = now.plus(backoff(strikes, null));
        return new Decision(new AgentPauses.Pause(profile, OutcomeClass.USAGE_LIMIT, next, message, since, strikes),
            HaltReason.USAGE_LIMIT, profile + " hit its usage limit and did not say when it resets, still after "
                + RATE_LIMIT_STRIKES + " waits; the next run may try again after " + clock(next, now));
      }
      until = now.plus(backoff(strikes, null));
    }
    return new Decision(new AgentPauses.Pause(profile, OutcomeClass.USAGE_LIMIT, until, message, since, strikes), null,
        profile + " paused until " + clock(until, now) + ", usage limit");
  }

  /** 30 s, 60 s, 120 s … up to 15 min, ±20 % jitter, never shorter than a delay the provider stated. */
  Duration backoff(int strike, Duration stated) {
    long base = BACKOFF_BASE.toMillis() << Math.min(strike - 1, 10);
    long capped = Math.min(base, BACKOFF_MAX.toMillis());
    long jittered = Math.round(capped * (0.8 + 0.4 * jitter.getAsDouble()));
    long floor = stated == null ? 0 : Math.min(stated.toMillis(), Duration.ofHours(6).toMillis());
    return Duration.ofMillis(Math.max(jittered, floor));
  }

  /**
   * "03:00 (UTC)" today, "Dec 3 03:00 (UTC)" on another day, in the operator's zone; a time within
   * a minute is rounded up (issue 44: cut to the minute, the time shown came before the pause's end,
   * and a run started then was refused).
   */
  String clock(Instant at, Instant now) {
    if (at.getEpochSecond() % 60 != 0 || at.getNano() != 0) {
      at = at.truncatedTo(ChronoUnit.MINUTES).plusSeconds(60);
    }
    boolean today = at.atZone(zone).toLocalDate().equals(now.atZone(zone).toLocalDate());
    String name = zone.normalized().equals(java.time.ZoneOffset.UTC) ? "UTC" : zone.getId();
    return at.atZone(zone).format(DateTimeFormatter.ofPattern(today ? "HH:mm" : "MMM d HH:mm", Locale.ROOT)) + " ("
        + name + ")";
  }

  private static String ordinal(int n) {
    return n + (n % 100 >= 11 && n % 100 <= 13 ? "th" : switch (n % 10) {
      case 1 -> "st";
      case 2 -> "nd";
      case 3 -> "rd";
      default -> "th";
    });
  }

  static String describe(Duration d) {
    return d.toHours() > 0 ? d.toHours() + "h" + (d.toMinutesPart() > 0 ? d.toMinutesPart() + "m" : "")
        : d.toMinutes() > 0 ? d.toMinutes() + "m" : d.toSeconds() + "s";
  }
}
