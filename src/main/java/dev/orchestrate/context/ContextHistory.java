package dev.orchestrate.context;

import dev.orchestrate.config.ContextConfig;
import dev.orchestrate.limits.SizeCap;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/** {@link TurnHistory} over a {@link TurnRepository} and a {@link SlidingWindowSummarizer}. */
public final class ContextHistory implements TurnHistory {
  private final TurnRepository repository;
  private final SlidingWindowSummarizer window;
  private final int turnMaxChars;
  private final Clock clock;

  ContextHistory(TurnRepository repository, SlidingWindowSummarizer window, int turnMaxChars, Clock clock) {
    this.repository = repository;
    this.window = window;
    this.turnMaxChars = turnMaxChars;
    this.clock = clock;
  }

  /**
   * Wires the summarizer chosen by the config; {@code mask} masks the known secret values in what
   * a failed summarization reports (see {@link SlidingWindowSummarizer}).
   */
  public static ContextHistory create(TurnRepository repository, ContextConfig config, Path workDir, Clock clock,
      SummarizationListener listener, Function<String, String> env, UnaryOperator<String> mask) {
    Summarizer summarizer = Summarizers.create(config.summarizer(), workDir, env);
    SlidingWindowSummarizer window = new SlidingWindowSummarizer(repository, summarizer,
        Summarizers.fallback(config.summarizer()), config.windowSize(),
        config.summaryMaxChars(), config.summarizer().prompt(), clock, listener, mask);
    return new ContextHistory(repository, window, config.turnMaxChars(), clock);
  }

  @Override
  public PriorContext prepare(String itemId) {
    return window.prepare(itemId);
  }

  /** Summarize-then-prune of the item's remaining turns; see {@link SlidingWindowSummarizer#condense}. */
  public int condense(String itemId) {
    return window.condense(itemId);
  }

  @Override
  public void recordTask(String itemId, String phase, int attempt, String task) {
    append(itemId, phase, attempt, Turn.Role.USER, task.strip());
  }

  @Override
  public void recordAnswer(String itemId, String phase, int attempt, Answer answer) {
    append(itemId, phase, attempt, Turn.Role.ASSISTANT, answerText(answer, turnMaxChars / 4));
  }

  /** Stores a turn within {@code context.turn_max_chars}, telling the store whether it was cut. */
  private void append(String itemId, String phase, int attempt, Turn.Role role, String text) {
    repository.appendTurn(itemId, phase, attempt, role, SizeCap.cap(text, turnMaxChars),
        SizeCap.exceeds(text, turnMaxChars), clock.instant());
  }

  static String answerText(Answer answer, int tailChars) {
    StringBuilder text = new StringBuilder();
    text.append("result: ").append(answer.result()).append('\n');
    if (answer.summary() != null && !answer.summary().isBlank()) {
      text.append("summary: ").append(answer.summary().strip()).append('\n');
    }
    if (answer.context() != null && !answer.context().isBlank()) {
      text.append("context: ").append(answer.context().strip()).append('\n');
    }
    String said = answer.answer() == null ? "" : answer.answer().strip();
    if (!said.isEmpty() && !text.toString().contains(said)) {
      text.append("answer: ").append(said).append('\n');
    }
    String tail = tail(answer.outputLog(), tailChars).strip();
    // Without a result file the summary or context already is the output's tail.
    if (!tail.isEmpty() && !text.toString().contains(tail)) {
      text.append("output (tail):\n").append(tail).append('\n');
    }
    return text.toString();
  }

  /**
   * The last {@code maxChars} bytes of the log, decoded leniently (a split character becomes U+FFFD).
   * The job directory is the agent's to write in: a link, FIFO or device it planted in place of the
   * log is not followed or opened, so nothing outside the state directory is read into a turn.
   */
  static String tail(Path log, int maxChars) {
    if (log == null || maxChars <= 0 || !Files.isRegularFile(log, LinkOption.NOFOLLOW_LINKS)) {
      return "";
    }
    try (SeekableByteChannel file = Files.newByteChannel(log, StandardOpenOption.READ,
        LinkOption.NOFOLLOW_LINKS)) {
      long length = file.size();
      int size = (int) Math.min(length, maxChars);
      ByteBuffer bytes = ByteBuffer.allocate(size);
      file.position(length - size);
      while (bytes.hasRemaining() && file.read(bytes) >= 0) {
        // read until full or the end
      }
      return new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return ""; // the tail is a convenience; the summary and context are what matter
    }
  }
}
