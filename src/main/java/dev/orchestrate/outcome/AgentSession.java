package dev.orchestrate.outcome;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The agent CLI's conversation of one attempt (docs/verification.md, "Resuming the agent's
 * session"): the id it printed, and whether this attempt started fresh or continued the last one.
 *
 * @param id    the session id the CLI printed (Claude Code's and Gemini's {@code session_id}, Codex's
 *              {@code thread_id}, opencode's {@code sessionID}); null when it printed none
 * @param start how the attempt began
 */
public record AgentSession(String id, Start start) {
  public static final AgentSession NONE = new AgentSession(null, Start.FRESH);

  /**
   * What a session id may look like. It comes from the agent's output and goes back on the next
   * attempt's command line, so anything else (a flag, a path, a space) is never taken as one.
   */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}");

  public AgentSession {
    java.util.Objects.requireNonNull(start, "start");
    if (id != null && !valid(id)) {
      throw new IllegalArgumentException("not a session id: " + id);
    }
  }

  /** Whether {@code text} can be a session id (letters, digits, {@code _ . : -}, at most 128, no leading sign). */
  public static boolean valid(String text) {
    return text != null && ID.matcher(text).matches();
  }

  /** How an attempt began. */
  public enum Start {
    /** A new conversation with the full prompt. */
    FRESH,
    /** The last attempt's conversation, continued with a short prompt that carries the new failure. */
    RESUMED,
    /** A resume the CLI refused (it no longer knew the session): a new conversation with the full prompt. */
    RESUME_FAILED;

    public String key() {
      return this == RESUME_FAILED ? "fresh_after_failed_resume" : name().toLowerCase(Locale.ROOT);
    }

    public static Start of(String key) {
      for (Start s : values()) {
        if (s.key().equals(key)) {
          return s;
        }
      }
      return null;
    }
  }
}
