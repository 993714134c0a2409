package dev.orchestrate.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.jobs.LineSplitter;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * A job's output.log as people read it ({@code orchestrate logs}, without {@code --raw}): the JSON
 * event streams of the presets' CLIs (Claude Code, Codex, the Gemini CLI, opencode) become what the
 * agent said, the tools it ran (→) and what they gave back (←), its errors and its end; every other
 * line (a plain command's output, a CLI's stderr) is shown as it is. The format is recognised per
 * line by the event's {@code type}, so no config is needed and a log mixing streams reads too.
 *
 * <p>Bounded: the log is fed in chunks through a {@link LineSplitter} that holds at most
 * {@link #MAX_LINE_BYTES} of one line (a longer one is skipped with a note saying so), each shown
 * value is cut ({@link #VALUE_MAX_CHARS}, a text {@link #TEXT_MAX_CHARS}), and the Gemini CLI's
 * answer, streamed in pieces, is joined within {@link #TEXT_MAX_CHARS}. Everything an agent wrote
 * goes through {@link TerminalText}: agents are untrusted.
 */
final class AgentStreamText {
  /** As the presets' readers: a longer line is not an event anyone reads. */
  static final int MAX_LINE_BYTES = 2 * 1024 * 1024;
  static final int VALUE_MAX_CHARS = 200;
  static final int TEXT_MAX_CHARS = 8_000;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final PrintWriter out;
  private final LineSplitter lines;
  private final StringBuilder streamed = new StringBuilder();
  private long skippedShown;

  AgentStreamText(PrintWriter out) {
    this.out = out;
    this.lines = new LineSplitter(MAX_LINE_BYTES, this::line);
  }

  /** The next bytes of the log. */
  void append(byte[] bytes, int offset, int length) {
    lines.append(bytes, offset, length);
    noteSkipped();
  }

  /** The end of the log (or of what is there now, when following ends): the last line without a break. */
  void finish() {
    lines.finish();
    flushStreamed();
    noteSkipped();
  }

  private void noteSkipped() {
    if (lines.skipped() > skippedShown) {
      flushStreamed();
      out.println("[a line longer than " + (MAX_LINE_BYTES / 1024 / 1024) + " MiB is not shown: orchestrate logs "
          + "--raw prints the log as written]");
      skippedShown = lines.skipped();
    }
  }

  private void line(String line) {
    JsonNode event = event(line);
    if (event == null) {
      flushStreamed();
      out.println(TerminalText.safeLines(stripCr(line)));
      return;
    }
    String type = event.path("type").asText();
    if (!(type.equals("message") && event.path("delta").asBoolean(false)
        && "assistant".equals(event.path("role").asText()))) {
      flushStreamed();
    }
    render(type, event);
  }

  private static String stripCr(String line) {
    return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
  }

  /** The line as a JSON object with a {@code type}, or null: a line of text. */
  private static JsonNode event(String line) {
    String trimmed = line.strip();
    if (!trimmed.startsWith("{") || !trimmed.endsWith("}")) {
      return null;
    }
    try {
      JsonNode node = JSON.readTree(trimmed);
      return node != null && node.isObject() && node.path("type").isTextual() ? node : null;
    } catch (java.io.IOException | RuntimeException e) {
      return null;
    }
  }

  private void render(String type, JsonNode e) {
    switch (type) {
      // Claude Code (stream-json)
      case "system" -> system(e);
      case "assistant" -> assistant(e);
      case "user" -> toolResults(e.path("message").path("content"));
      case "result" -> result(e);
      case "rate_limit_event" -> say("rate limit: " + value(e.path("rate_limit_info").isMissingNode()
          ? e : e.path("rate_limit_info")));
      // Codex (exec --json)
      case "thread.started" -> say("── thread " + text(e.path("thread_id")));
      case "turn.started", "item.started", "step_start" -> {
        // the completed item or step says it all
      }
      case "item.completed", "item.updated" -> codexItem(e.path("item"));
      case "turn.completed" -> say("── turn completed" + tokens(e.path("usage")));
      case "turn.failed" -> say("error: " + text(e.path("error").path("message")));
      case "error" -> say("error: " + errorText(e));
      // Gemini CLI (stream-json)
      case "init" -> say("── session " + text(e.path("session_id")) + model(e));
      case "message" -> message(e);
      case "tool_use" -> toolUse(e);
      case "tool_result" -> say("← " + text(e.path("status")) + (e.path("output").isMissingNode() ? ""
          : ": " + cut(firstLine(text(e.path("output"))))));
      // opencode (run --format json)
      case "text" -> said(text(e.path("part").path("text")));
      case "step_finish" -> {
        JsonNode part = e.path("part");
        if (!"tool-calls".equals(part.path("reason").asText())) {
          say("── step finished (" + text(part.path("reason")) + ")");
        }
      }
      default -> say("· " + cut(type));
    }
  }

  private void system(JsonNode e) {
    String subtype = e.path("subtype").asText();
    if (subtype.equals("init")) {
      say("── session " + text(e.path("session_id")) + model(e));
    } else if (subtype.equals("api_retry")) {
      say("retrying (attempt " + text(e.path("attempt")) + " of " + text(e.path("max_retries")) + "): "
          + text(e.path("error")) + (e.path("error_status").isNumber() ? " " + e.path("error_status").asInt() : "")
          + (e.path("retry_delay_ms").isNumber() ? ", in " + JobsCommand.human(java.time.Duration.ofMillis(
              Math.max(0, e.path("retry_delay_ms").asLong()))) : ""));
    } else {
      say("· system " + cut(subtype));
    }
  }

  private void assistant(JsonNode e) {
    for (JsonNode block : e.path("message").path("content")) {
      String kind = block.path("type").asText();
      if (kind.equals("text")) {
        said(text(block.path("text")));
      } else if (kind.equals("tool_use")) {
        say("→ " + text(block.path("name")) + " " + input(block.path("input")));
      }
    }
    if (e.path("error").isTextual()) {
      say("error: " + text(e.path("error")));
    }
  }

  private void toolResults(JsonNode content) {
    for (JsonNode block : content) {
      if (!"tool_result".equals(block.path("type").asText())) {
        continue;
      }
      JsonNode body = block.path("content");
      String shown = body.isTextual() ? body.asText() : body.isArray() && body.size() > 0
          ? body.get(0).path("text").asText("") : "";
      say("← " + (block.path("is_error").asBoolean(false) ? "error: " : "") + cut(firstLine(shown)));
    }
  }

  private void result(JsonNode e) {
    if (e.has("stats") || e.has("status")) { // the Gemini CLI's result
      say("── result: " + text(e.path("status")) + (e.path("error").isObject()
          ? ": " + cut(text(e.path("error").path("message"))) : ""));
      return;
    }
    boolean error = e.path("is_error").asBoolean(false) || e.path("subtype").asText().startsWith("error");
    StringBuilder line = new StringBuilder("── ").append(error ? "ended with an error" : "done");
    if (e.path("subtype").isTextual() && !"success".equals(e.path("subtype").asText())) {
      line.append(" (").append(text(e.path("subtype"))).append(')');
    }
    if (e.path("num_turns").isNumber()) {
      line.append(", ").append(e.path("num_turns").asInt()).append(" turn").append(
          e.path("num_turns").asInt() == 1 ? "" : "s");
    }
    if (e.path("total_cost_usd").isNumber()) {
      line.append(", ").append(UsageView.cost(e.path("total_cost_usd").asDouble()));
    }
    line.append(tokens(e.path("usage")));
    say(line.toString());
    if (error && e.path("result").isTextual()) {
      say("error: " + text(e.path("result")));
    }
  }

  private void codexItem(JsonNode item) {
    switch (item.path("type").asText()) {
      case "agent_message" -> said(text(item.path("text")));
      case "reasoning" -> {
        // its thinking: not what it said
      }
      case "command_execution" -> {
        say("→ " + cut(firstLine(text(item.path("command"))))
            + (item.path("exit_code").isNumber() ? " (exit " + item.path("exit_code").asInt() + ")" : ""));
        String output = text(item.path("aggregated_output")).strip();
        if (!output.isEmpty()) {
          say("← " + cut(firstLine(output)));
        }
      }
      case "file_change" -> say("→ file change " + value(item.path("changes")));
      case "error" -> say("error: " + text(item.path("message")));
      default -> say("→ " + cut(item.path("type").asText()) + " " + value(item));
    }
  }

  private void message(JsonNode e) {
    String role = e.path("role").asText();
    if (!role.equals("assistant")) {
      return; // the prompt, which the job's prompt.md holds
    }
    String piece = text(e.path("content"));
    if (e.path("delta").asBoolean(false)) {
      if (streamed.length() < TEXT_MAX_CHARS) {
        streamed.append(piece, 0, Math.min(piece.length(), TEXT_MAX_CHARS - streamed.length()));
      }
    } else {
      said(piece);
    }
  }

  private void toolUse(JsonNode e) {
    if (e.path("part").isObject()) { // opencode
      JsonNode part = e.path("part");
      JsonNode state = part.path("state");
      say("→ " + text(part.path("tool")) + " " + input(state.path("input")));
      if (state.path("output").isTextual()) {
        say("← " + ("error".equals(state.path("status").asText()) ? "error: " : "")
            + cut(firstLine(state.path("output").asText())));
      } else if (state.path("error").isTextual()) {
        say("← error: " + cut(firstLine(state.path("error").asText())));
      }
      return;
    }
    say("→ " + text(e.path("tool_name")) + " " + input(e.path("parameters"))); // the Gemini CLI
  }

  private void flushStreamed() {
    if (streamed.length() > 0) {
      said(streamed.toString());
      streamed.setLength(0);
    }
  }

  /** What the agent said, whole but for the cap, its lines kept. */
  private void said(String text) {
    String t = text.strip();
    if (!t.isEmpty()) {
      out.println(TerminalText.safeLines(t.length() > TEXT_MAX_CHARS ? t.substring(0, TEXT_MAX_CHARS - 1) + "…" : t));
    }
  }

  /** One line of ours, with agent text in it: made safe. */
  private void say(String line) {
    out.println(TerminalText.safe(line));
  }

  /** A tool's input in a few words: its command, path or pattern, else its JSON cut. */
  private static String input(JsonNode input) {
    for (String key : new String[] {"command", "file_path", "filePath", "path", "pattern", "url", "query",
        "description"}) {
      if (input.path(key).isTextual()) {
        return cut(firstLine(input.path(key).asText()));
      }
    }
    return value(input);
  }

  private static String errorText(JsonNode e) {
    if (e.path("message").isTextual()) {
      return text(e.path("message"));
    }
    JsonNode error = e.path("error");
    if (error.path("message").isTextual()) {
      return text(error.path("message"));
    }
    if (error.path("data").path("message").isTextual()) {
      return text(error.path("data").path("message"));
    }
    return value(error.isMissingNode() ? e : error);
  }

  private static String model(JsonNode e) {
    return e.path("model").isTextual() ? " (model " + cut(e.path("model").asText()) + ")" : "";
  }

  /** ", 1,234 tokens in, 56 out" from a usage object (Claude Code's or Codex's), else "". */
  private static String tokens(JsonNode usage) {
    if (!usage.path("input_tokens").isNumber() && !usage.path("output_tokens").isNumber()) {
      return "";
    }
    return String.format(Locale.ROOT, ", %,d tokens in, %,d out", usage.path("input_tokens").asLong(),
        usage.path("output_tokens").asLong());
  }

  private static String text(JsonNode node) {
    return node.isValueNode() ? node.asText() : node.isMissingNode() || node.isNull() ? "" : node.toString();
  }

  private static String value(JsonNode node) {
    return cut(node.isMissingNode() ? "" : node.toString());
  }

  private static String firstLine(String text) {
    String t = text.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl) + " …";
  }

  private static String cut(String text) {
    return text.length() > VALUE_MAX_CHARS ? text.substring(0, VALUE_MAX_CHARS - 1) + "…" : text;
  }
}
