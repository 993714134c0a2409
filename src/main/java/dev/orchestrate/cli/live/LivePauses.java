package dev.orchestrate.cli.live;

import dev.orchestrate.item.AgentPauses;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The agent profiles a provider's limit paused, as the live view shows them, and the time the run
 * stands still for them. The run stands still while a pause is in force and no job runs (a
 * fallback at work, or a job the limit has not reached yet, is work going on): that time is no
 * work done, so the ETA does not count down through it, and while it lasts the ETA is the pause's
 * end plus the work left. Bounded by the profiles. Not thread-safe: the live view holds its lock.
 */
final class LivePauses {
  private final Map<String, AgentPauses.Pause> pauses = new TreeMap<>();
  /** Since when the run stands still, or null while it does not. */
  private Instant stillSince;

  /** Profile {@code pause.profile()} is paused (again, or until a new end). */
  void paused(AgentPauses.Pause pause) {
    pauses.put(pause.profile(), pause);
  }

  /** Profile {@code profile} worked again: its pause is over. */
  void ended(String profile) {
    pauses.remove(profile);
  }

  /** The pauses in force at {@code now}, by profile; those over are forgotten. */
  List<AgentPauses.Pause> inForce(Instant now) {
    pauses.values().removeIf(p -> !p.activeAt(now));
    return List.copyOf(pauses.values());
  }

  /** Since when the run stands still, or null while it does not. */
  Instant stillSince() {
    return stillSince;
  }

  /**
   * Follows whether the run stands still at {@code now} ({@code jobsRunning}: some job runs);
   * returns how long a stillness that has just ended lasted, else zero: the time to add to an ETA
   * reckoned before it.
   */
  Duration follow(Instant now, boolean jobsRunning) {
    boolean still = !jobsRunning && !inForce(now).isEmpty();
    if (still && stillSince == null) {
      stillSince = now;
    } else if (!still && stillSince != null) {
      Duration stood = Duration.between(stillSince, now);
      stillSince = null;
      return stood.isNegative() ? Duration.ZERO : stood;
    }
    return Duration.ZERO;
  }

  /**
   * The ETA to show at {@code now} for {@code eta}, an estimate of when the work ends if it went on
   * from the moment the run began to stand still: while it stands still, moved by the wait until
   * the first pause in force ends. Null for null.
   */
  Instant shown(Instant eta, Instant now) {
    if (eta == null || stillSince == null) {
      return eta;
    }
    Instant end = null;
    for (AgentPauses.Pause p : inForce(now)) {
      Instant until = p.end();
      end = end == null || until.isBefore(end) ? until : end;
    }
    return end == null ? eta : eta.plus(Duration.between(stillSince, end.isAfter(now) ? end : now));
  }
}
