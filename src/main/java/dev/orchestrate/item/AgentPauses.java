package dev.orchestrate.item;

import dev.orchestrate.outcome.OutcomeClass;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The agent profiles a provider's limit paused, kept in the state so that a restarted run (and
 * every runner of a shared state) honours a pause and {@code status}/{@code stats} show it
 * (docs/agents.md, "Provider limits"). Bounded by the number of profiles.
 */
public interface AgentPauses {
  /** Pauses kept in memory only, for a scheduler without a state store behind it (tests). */
  static AgentPauses inMemory() {
    java.util.Map<String, Pause> map = new java.util.TreeMap<>();
    return new AgentPauses() {
      @Override
      public List<Pause> all() {
        return List.copyOf(map.values());
      }

      @Override
      public void put(Pause pause) {
        map.put(pause.profile(), pause);
      }

      @Override
      public void clear(String profile) {
        map.remove(profile);
      }

      @Override
      public java.util.Optional<Pause> remove(String profile) {
        return java.util.Optional.ofNullable(map.remove(profile));
      }
    };
  }

  /** Every pause recorded, by profile name. */
  List<Pause> all();

  /** Records or replaces the pause of {@code pause.profile()}. */
  void put(Pause pause);

  /** The profile works again: its pause is gone. */
  void clear(String profile);

  /**
   * A person resumes the profile ({@code orchestrate agents resume}): its pause is gone, read and
   * deleted in one transaction, so that what is returned is exactly what was deleted. Empty when
   * the profile was not paused.
   */
  java.util.Optional<Pause> remove(String profile);

  /**
   * One paused profile.
   *
   * @param kind    {@link OutcomeClass#USAGE_LIMIT} or {@link OutcomeClass#RATE_LIMITED}
   * @param until   when work may start again (a stated reset plus a margin, or the backoff's end);
   *                null only in a pause an older version recorded
   * @param message what the agent CLI said
   * @param since   the first limited attempt of this pause
   * @param strikes limited attempts in a row, the step of the backoff
   */
  record Pause(String profile, OutcomeClass kind, Instant until, String message, Instant since, int strikes) {
    /** How long a pause recorded without an end lasts: the longest backoff. */
    public static final java.time.Duration UNSTATED_END = java.time.Duration.ofMinutes(15);

    public Pause {
      Objects.requireNonNull(profile, "profile");
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(since, "since");
      message = message == null ? "" : message;
    }

    /**
     * Whether work of this profile must still wait at {@code now}. A pause recorded without an end
     * (by a version before every pause had one) ends {@link #UNSTATED_END} after it began: no pause
     * holds forever.
     */
    public boolean activeAt(Instant now) {
      return end().isAfter(now);
    }

    /** When work may start again: {@link #until}, or {@link #UNSTATED_END} after {@link #since} without one. */
    public Instant end() {
      return until != null ? until : since.plus(UNSTATED_END);
    }
  }
}
