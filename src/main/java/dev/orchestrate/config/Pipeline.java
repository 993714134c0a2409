package dev.orchestrate.config;

import java.util.List;

/**
 * A named pipeline: pre-phases run while an item is {@code scoping}, phases while
 * {@code in_progress}; {@code agent} names the agent profile of its phases (null: the default) and
 * {@code fallback} the profiles that take over while it is paused by a provider's limit;
 * {@code verify} the gates of its phases that name none (docs/verification.md); {@code review}
 * whether an item that finished its phases waits for a human's approval (docs/review.md);
 * {@code integrationVerify} the gates of an item's work on top of the base branch's tip before the
 * base moves (docs/verification.md, "What lands"): null for the default, {@link #integrationGates()};
 * {@code integrationMaxRounds} how many red integrations send an item back before it is blocked.
 */
public record Pipeline(String name, List<PhaseDef> prePhases, List<PhaseDef> phases, String agent,
    List<String> fallback, List<ProjectCommand> verify, Review review, ReviewTimeout reviewTimeout,
    List<ProjectCommand> integrationVerify, int integrationMaxRounds, List<String> verifyProtected) {
  /** Red integrations of an item after which it is blocked rather than sent back, by default. */
  public static final int DEFAULT_INTEGRATION_MAX_ROUNDS = 3;

  public Pipeline {
    prePhases = List.copyOf(prePhases);
    phases = List.copyOf(phases);
    fallback = fallback == null ? List.of() : List.copyOf(fallback);
    verify = verify == null ? List.of() : List.copyOf(verify);
    review = review == null ? Review.NONE : review;
    integrationVerify = integrationVerify == null ? null : List.copyOf(integrationVerify);
    verifyProtected = verifyProtected == null ? List.of() : List.copyOf(verifyProtected);
    if (integrationMaxRounds < 1) {
      throw new IllegalArgumentException("integration_max_rounds must be at least 1");
    }
  }

  public Pipeline(String name, List<PhaseDef> prePhases, List<PhaseDef> phases, String agent, List<String> fallback,
      List<ProjectCommand> verify, Review review, ReviewTimeout reviewTimeout) {
    this(name, prePhases, phases, agent, fallback, verify, review, reviewTimeout, null,
        DEFAULT_INTEGRATION_MAX_ROUNDS, List.of());
  }

  /**
   * The gates an item's work must pass as it will land, on top of the base branch's tip:
   * {@code integration_verify:} when the pipeline has the key ({@code []}: none), else every gate
   * of its phases, each name once, in the order the phases run them.
   */
  public List<ProjectCommand> integrationGates() {
    if (integrationVerify != null) {
      return integrationVerify;
    }
    java.util.Map<String, ProjectCommand> gates = new java.util.LinkedHashMap<>();
    for (PhaseDef phase : phases) {
      verifyFor(phase).forEach(gate -> gates.putIfAbsent(gate.name(), gate));
    }
    return List.copyOf(gates.values());
  }

  /**
   * {@code review_timeout} and {@code on_review_timeout}: what a running run does with an item that
   * has awaited review longer than {@code after}.
   */
  public record ReviewTimeout(java.time.Duration after, TimeoutAction action) {
    public ReviewTimeout {
      java.util.Objects.requireNonNull(after, "after");
      java.util.Objects.requireNonNull(action, "action");
    }
  }

  /** {@code on_review_timeout}: the default action when nobody reviewed in time. */
  public enum TimeoutAction {
    /** The item is approved (done, and integrated). */
    APPROVE,
    /** The item goes back to its last phase, with a note that its review timed out. */
    REJECT,
    /** The item is blocked, its reason saying that nobody reviewed it in time. The default. */
    BLOCK;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** {@code review:} of a pipeline: whether its finished items wait in awaiting_review for approve or reject. */
  public enum Review {
    /** A finished item is done at once (and integrated). The default. */
    NONE,
    /** A finished item waits in awaiting_review until {@code orchestrate approve} or {@code reject}. */
    REQUIRED;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public Pipeline(String name, List<PhaseDef> prePhases, List<PhaseDef> phases, String agent, List<String> fallback,
      List<ProjectCommand> verify) {
    this(name, prePhases, phases, agent, fallback, verify, Review.NONE, null);
  }

  /** This pipeline with {@code review:} set. */
  public Pipeline withReview(Review next) {
    return new Pipeline(name, prePhases, phases, agent, fallback, verify, next, reviewTimeout, integrationVerify,
        integrationMaxRounds, verifyProtected);
  }

  public Pipeline(String name, List<PhaseDef> prePhases, List<PhaseDef> phases, String agent, List<String> fallback) {
    this(name, prePhases, phases, agent, fallback, List.of());
  }

  /** The pre-phases, then the phases: every phase of the pipeline. */
  public List<PhaseDef> allPhases() {
    List<PhaseDef> all = new java.util.ArrayList<>(prePhases);
    all.addAll(phases);
    return all;
  }

  /**
   * The gates of {@code phase}: its own {@code verify:} when it has the key, else the pipeline's
   * for a phase of {@code phases} (a pre-phase, which scopes the item, has none unless it says so).
   */
  public List<ProjectCommand> verifyFor(PhaseDef phase) {
    if (phase.verify() != null) {
      return phase.verify();
    }
    return phases.contains(phase) ? verify : List.of();
  }

  /** A pipeline run by the default agent profile. */
  public Pipeline(String name, List<PhaseDef> prePhases, List<PhaseDef> phases) {
    this(name, prePhases, phases, null, List.of());
  }

  /**
   * The agent profiles that may run {@code phase}, first choice first: the phase's profile, else
   * the pipeline's, else null (the default profile), then the phase's fallbacks, else the
   * pipeline's.
   */
  public List<String> profilesFor(PhaseDef phase) {
    List<String> out = new java.util.ArrayList<>();
    out.add(phase.agent() != null ? phase.agent() : agent);
    for (String f : phase.fallback().isEmpty() ? fallback : phase.fallback()) {
      if (!out.contains(f)) {
        out.add(f);
      }
    }
    return out;
  }
}
