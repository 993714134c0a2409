package dev.orchestrate.context;

import dev.orchestrate.item.Event;

import dev.orchestrate.limits.SizeCap;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the last {@code windowSize} turns of an item verbatim and a rolling summary of the older
 * ones. Each summarization reads the previous summary plus only the turns that aged out since,
 * so its input stays bounded however long the history grows.
 *
 * <p>A failing summarizer (error, timeout, empty answer) never blocks the caller and never deletes
 * a turn: the failure is reported, then either the builtin summarizer stands in (the summary is
 * marked degraded) or, with no fallback, the aged-out turns stay verbatim. The failure's message
 * may quote what a summarizer was answered (an endpoint that echoes the API key it refused, a
 * command's stderr): it is masked before it reaches the event, the log or the listener.
 */
public final class SlidingWindowSummarizer {
  public static final String EVENT_COMPLETE = Event.SUMMARY_COMPLETE;
  public static final String EVENT_FAILED = Event.SUMMARY_FAILED;
  private static final Logger log = LoggerFactory.getLogger(SlidingWindowSummarizer.class);

  private final TurnRepository repository;
  private final Summarizer summarizer;
  private final Summarizer fallback;
  private final int windowSize;
  private final int summaryMaxChars;
  private final String customPrompt;
  private final Clock clock;
  private final SummarizationListener listener;
  private final UnaryOperator<String> mask;

  /**
   * @param fallback     stands in when {@code summarizer} fails; null keeps the turns verbatim
   * @param customPrompt extra instructions for the summarizer, or null
   * @param mask         masks the known secret values in a failure's message (the run's
   *                     {@code Secrets::mask})
   */
  public SlidingWindowSummarizer(TurnRepository repository, Summarizer summarizer, Summarizer fallback,
      int windowSize, int summaryMaxChars, String customPrompt, Clock clock, SummarizationListener listener,
      UnaryOperator<String> mask) {
    if (windowSize < 1) {
      throw new IllegalArgumentException("window size must be at least 1, got " + windowSize);
    }
    this.repository = repository;
    this.summarizer = summarizer;
    this.fallback = fallback;
    this.windowSize = windowSize;
    this.summaryMaxChars = summaryMaxChars;
    this.customPrompt = customPrompt;
    this.clock = clock;
    this.listener = listener;
    this.mask = mask;
  }

  /** Summarizes what aged out of the window, if anything did, and returns what the next prompt carries. */
  public PriorContext prepare(String itemId) {
    long last = repository.lastTurnSeq(itemId);
    Optional<ContextSummary> existing = repository.summary(itemId);
    long covered = existing.map(ContextSummary::toSeq).orElse(0L);
    long cutoff = last - windowSize; // turns up to here should be in the summary
    if (cutoff <= covered) {
      return new PriorContext(existing.map(ContextSummary::text).orElse(null),
          repository.turns(itemId, Math.max(covered, cutoff), last));
    }
    List<Turn> aged = repository.turns(itemId, covered, cutoff);
    String prompt = SummaryPrompt.build(customPrompt, existing.map(ContextSummary::text).orElse(null), aged);
    Optional<ContextSummary> summary = summarize(itemId, prompt, existing, aged, cutoff, false).map(Saved::summary);
    if (summary.isEmpty()) {
      // no fallback: everything the summary does not cover stays verbatim
      return new PriorContext(existing.map(ContextSummary::text).orElse(null),
          repository.turns(itemId, covered, last));
    }
    return new PriorContext(summary.get().text(), repository.turns(itemId, cutoff, last));
  }

  /**
   * Summarize-then-prune for retention: rolls every turn of the item that its summary does not
   * cover yet into the summary, saves it and deletes the turns it now covers, in one transaction.
   * When summarization fails (and the fallback too, or there is none) nothing is deleted.
   *
   * @return the turns deleted (0 when there was nothing to condense or summarization failed)
   */
  public int condense(String itemId) {
    long last = repository.lastTurnSeq(itemId);
    Optional<ContextSummary> existing = repository.summary(itemId);
    long covered = existing.map(ContextSummary::toSeq).orElse(0L);
    List<Turn> uncovered = repository.turns(itemId, covered, last);
    if (uncovered.isEmpty()) {
      return 0;
    }
    String prompt = SummaryPrompt.build(customPrompt, existing.map(ContextSummary::text).orElse(null), uncovered);
    return summarize(itemId, prompt, existing, uncovered, last, true).map(Saved::pruned).orElse(0);
  }

  private record Saved(ContextSummary summary, int pruned) {
  }

  private Optional<Saved> summarize(String itemId, String prompt, Optional<ContextSummary> existing,
      List<Turn> aged, long cutoff, boolean prune) {
    try {
      return Optional.of(save(itemId, summarizer.summarize(prompt), summarizer.name(), false, existing, aged,
          cutoff, prune));
    } catch (RuntimeException e) { // a SummarizationException, or a bug: either way the turns stay
      String error = mask.apply(oneLine(e));
      Map<String, Object> payload = new LinkedHashMap<>();
      payload.put("error", error);
      payload.put("generator", summarizer.name());
      payload.put("fallback", fallback == null ? "none" : fallback.name());
      repository.recordEvent(itemId, EVENT_FAILED, payload, clock.instant());
      log.warn("summarization of item {} failed ({}); {}", itemId, error,
          fallback == null ? "keeping every turn verbatim" : "using the " + fallback.name() + " summarizer");
      listener.summarizationFailed(itemId, error);
    }
    if (fallback == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(save(itemId, fallback.summarize(prompt), fallback.name(), true, existing, aged, cutoff,
          prune));
    } catch (RuntimeException e) { // a SummarizationException, or a bug: either way the turns stay
      log.warn("fallback summarization of item {} failed too ({}); keeping every turn verbatim", itemId,
          mask.apply(oneLine(e)));
      return Optional.empty();
    }
  }

  private Saved save(String itemId, String text, String generator, boolean degraded,
      Optional<ContextSummary> existing, List<Turn> aged, long cutoff, boolean prune) throws SummarizationException {
    if (text == null || text.isBlank()) {
      throw new SummarizationException(generator + " summarizer returned an empty summary");
    }
    boolean truncated = SizeCap.exceeds(text.strip(), summaryMaxChars);
    String capped = SizeCap.cap(text.strip(), summaryMaxChars);
    int tokens = Tokens.estimate(capped);
    ContextSummary summary = new ContextSummary(itemId, capped,
        existing.map(ContextSummary::fromSeq).orElse(aged.isEmpty() ? 1L : aged.get(0).seq()), cutoff,
        existing.map(ContextSummary::sourceCount).orElse(0) + aged.size(), generator, clock.instant(),
        degraded, tokens);
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("turnsCondensed", aged.size());
    payload.put("summaryTokenEstimate", tokens);
    payload.put("generator", generator);
    payload.put("degraded", degraded);
    payload.put("fromSeq", summary.fromSeq());
    payload.put("toSeq", summary.toSeq());
    int pruned = 0;
    if (prune) {
      payload.put("turnsPruned", true);
      pruned = repository.saveSummaryAndPrune(summary, truncated, EVENT_COMPLETE, payload);
    } else {
      repository.saveSummary(summary, truncated, EVENT_COMPLETE, payload);
    }
    log.info("condensed {} turn(s) of item {} into a summary of ~{} tokens ({}{})", aged.size(), itemId, tokens,
        generator, degraded ? ", degraded" : "");
    listener.summarizationComplete(itemId, aged.size(), tokens, degraded);
    return new Saved(summary, pruned);
  }

  private static String oneLine(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return message.strip().replaceAll("\\s*\\n\\s*", " ");
  }
}
