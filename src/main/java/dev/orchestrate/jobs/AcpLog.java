package dev.orchestrate.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.outcome.AgentOutcome;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * An ACP agent's {@code session/update} notifications as the readable lines of its job's log
 * ({@link AcpClient}): its message text a line at a time, its thoughts, its tool calls with their
 * title, kind and status, its plan; and the answer its message text makes. Bounded: each line
 * within {@link #LINE_MAX_CHARS}, the answer within twice {@link AgentOutcome#TEXT_MAX_CHARS}, at
 * most {@link #MAX_TOOL_CALLS} tool calls remembered. Used under the client's lock.
 */
final class AcpLog {
  /** A line written to the log: the text of a message, a tool call. */
  static final int LINE_MAX_CHARS = 2000;
  /** Tool calls whose title and kind are remembered (for their updates and permission requests). */
  static final int MAX_TOOL_CALLS = 4096;

  private Consumer<String> sink = line -> {};
  private final StringBuilder answer = new StringBuilder();
  /** The agent's text (or thought) not yet logged: the part of a line its chunks have given so far. */
  private final StringBuilder partial = new StringBuilder();
  private boolean partialIsThought;
  private final Map<String, String[]> toolCalls = new LinkedHashMap<>(); // id -> {title, kind}

  /** Where the lines go (the job's log, through the capture's masking). */
  void to(Consumer<String> lines) {
    this.sink = lines;
  }

  void line(String line) {
    sink.accept(line);
  }

  /** The agent's message text so far, within the cap. */
  String answer() {
    return answer.toString();
  }

  /** The title and kind of tool call {@code id} as its updates gave them ({null, null} parts unknown), or null. */
  String[] known(String id) {
    return toolCalls.get(AcpPermissions.clip(id, 128));
  }

  /**
   * {@link #known} of a call the agent asks permission for; a call it has not reported yet is
   * reported from the request ({@code → title [kind] (pending)}): an agent may ask first (the
   * Gemini CLI sends no {@code tool_call} for a call that needs permission, only the request and the
   * call's final update).
   */
  String[] asked(JsonNode call, String id) {
    if (known(id) == null && call.isObject()) {
      toolCall(call, true);
    }
    return known(id);
  }

  void chunk(JsonNode content, boolean thought) {
    if (!"text".equals(content.path("type").asText()) || !content.path("text").isTextual()) {
      return;
    }
    String text = content.path("text").asText();
    if (!thought && answer.length() < AgentOutcome.TEXT_MAX_CHARS * 2) {
      answer.append(text, 0, Math.min(text.length(), AgentOutcome.TEXT_MAX_CHARS * 2 - answer.length()));
    }
    if (partial.length() > 0 && partialIsThought != thought) {
      flush();
    }
    partialIsThought = thought;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n') {
        flushLine();
      } else if (partial.length() < LINE_MAX_CHARS) {
        partial.append(c);
      }
    }
  }

  /** Writes the agent's text given so far as a line, if there is any. */
  void flush() {
    if (partial.length() > 0) {
      flushLine();
    }
  }

  private void flushLine() {
    line((partialIsThought ? "(thinking) " : "") + partial);
    partial.setLength(0);
  }

  void toolCall(JsonNode update, boolean fresh) {
    flush();
    String id = AcpPermissions.clip(update.path("toolCallId").asText(""), 128);
    String[] known = toolCalls.get(id);
    if (known == null && toolCalls.size() < MAX_TOOL_CALLS) {
      known = new String[2];
      toolCalls.put(id, known);
    }
    String title = update.path("title").isTextual() ? oneLine(update.path("title").asText()) : null;
    String kind = update.path("kind").isTextual() ? AcpPermissions.clip(update.path("kind").asText(), 40) : null;
    String status = update.path("status").isTextual() ? AcpPermissions.clip(update.path("status").asText(), 40) : null;
    boolean retitled = title != null && (known == null || !title.equals(known[0]));
    if (known != null) {
      known[0] = title != null ? title : known[0];
      known[1] = kind != null ? kind : known[1];
    }
    String shown = title != null ? title : known != null && known[0] != null ? known[0] : "tool call " + id;
    if (fresh || (retitled && status == null)) {
      line("→ " + shown + (kind != null ? " [" + kind + "]" : "") + (status != null ? " (" + status + ")" : ""));
    } else if (status != null) {
      line("← " + shown + ": " + status);
    }
  }

  void plan(JsonNode entries) {
    flush();
    line("plan:");
    int shown = 0;
    for (JsonNode entry : entries) {
      if (shown++ >= 50) {
        line("  … (" + entries.size() + " entries)");
        break;
      }
      line("  [" + AcpPermissions.clip(entry.path("status").asText("?"), 20) + "] "
          + oneLine(entry.path("content").asText("")));
    }
  }

  /** One line of the agent's text, within {@link #LINE_MAX_CHARS}, its control characters spaces. */
  static String oneLine(String text) {
    String capped = SizeCap.cap(text, LINE_MAX_CHARS);
    StringBuilder b = new StringBuilder(capped.length());
    for (int i = 0; i < capped.length(); i++) {
      char c = capped.charAt(i);
      b.append(Character.isISOControl(c) ? ' ' : c);
    }
    return b.toString();
  }
}
