package dev.orchestrate.context;

import java.nio.file.Path;

/**
 * What the scheduler needs of turn history: the prior context of an item's next prompt, and the
 * recording of each attempt's two turns.
 */
public interface TurnHistory {
  /** Records nothing and gives every prompt an empty prior context. */
  TurnHistory NONE = new TurnHistory() {
    @Override
    public PriorContext prepare(String itemId) {
      return PriorContext.EMPTY;
    }

    @Override
    public void recordTask(String itemId, String phase, int attempt, String task) {
    }

    @Override
    public void recordAnswer(String itemId, String phase, int attempt, Answer answer) {
    }
  };

  /**
   * Called when a phase of the item is about to be spawned: summarizes what aged out of the window
   * (awaited, bounded by the summarizer's timeout; a failure never throws) and returns what the
   * prompt carries.
   */
  PriorContext prepare(String itemId);

  /** Records the user turn of an attempt: the phase task as given. */
  void recordTask(String itemId, String phase, int attempt, String task);

  /** Records the assistant turn of an attempt. */
  void recordAnswer(String itemId, String phase, int attempt, Answer answer);

  /**
   * What an agent answered.
   *
   * @param result    phase_complete, failed, … or cancelled
   * @param answer    the agent's final answer in its own words, as its preset's reader parsed it (null:
   *                  none, or a plain command)
   * @param outputLog a plain command's output log, whose tail is kept (null or missing: none). Null for
   *                  a preset's agent: its log is a stream of JSON events, which never goes into a turn
   */
  record Answer(String result, String summary, String context, String answer, Path outputLog) {
    /** A plain command's answer: its result, and the tail of its output log. */
    public Answer(String result, String summary, String context, Path outputLog) {
      this(result, summary, context, null, outputLog);
    }
  }
}
