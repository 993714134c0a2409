package dev.orchestrate.context;

import dev.orchestrate.limits.SizeCap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The default summarizer: offline and deterministic. From the turns of a {@link SummaryPrompt}
 * it keeps the lines that carry file paths, error messages, decisions and constraints, tagged
 * with their phase; it keeps the previous summary's lines first, drops duplicates and caps the
 * length. It never fails, which is why it is also the fallback of the other summarizers.
 */
public final class BuiltinSummarizer implements Summarizer {
  private static final Pattern PATH = Pattern.compile(
      "(?:[\\w.-]+/)+[\\w.-]+|\\b[\\w-]+\\.(?:java|kt|py|ts|tsx|js|go|rs|c|h|cpp|rb|md|yaml|yml|json|sql|sh"
          + "|xml|toml|gradle|properties|txt|html|css)\\b");
  private static final Pattern ERROR = Pattern.compile("(?i)\\b(?:error|errors|exception|failed|failure|fatal"
      + "|cannot|can't|unable|denied|not found|traceback|panic|timed out|exit code|exited with)\\b");
  private static final Pattern DECISION = Pattern.compile("(?i)\\b(?:decid\\w*|decision\\w*|chose|chosen"
      + "|choose|must|never|always|should|shall|requires?|required|constraint\\w*|assum\\w*|because"
      + "|instead|prefer\\w*|avoid\\w*|do not|don't|use|uses|using)\\b");
  private static final Pattern HEADING = Pattern.compile("^### Turn \\d+ · (\\w+) · (\\S+) attempt \\d+$");

  private static final Pattern NOTHING_KEPT = Pattern
      .compile("- \\d+ earlier line\\(s\\) carried no file paths, errors or decisions\\.");

  private final int maxChars;

  public BuiltinSummarizer(int maxChars) {
    this.maxChars = maxChars;
  }

  @Override
  public String name() {
    return "builtin";
  }

  @Override
  public String summarize(String prompt) {
    String previous = between(prompt, SummaryPrompt.PREVIOUS_OPEN, SummaryPrompt.PREVIOUS_CLOSE);
    String turns = between(prompt, SummaryPrompt.TURNS_OPEN, SummaryPrompt.TURNS_CLOSE);
    if (previous == null && turns == null) {
      turns = prompt; // not one of ours: treat all of it as material
    }
    Set<String> seen = new LinkedHashSet<>();
    StringBuilder out = new StringBuilder();
    if (previous != null) {
      for (String line : previous.split("\n")) {
        if (NOTHING_KEPT.matcher(line.strip()).matches()) {
          continue; // a placeholder of an earlier generation, not material
        }
        add(out, seen, key(line.strip()), line.strip());
      }
    }
    int lines = 0;
    String phase = null;
    for (String raw : turns == null ? new String[0] : turns.split("\n")) {
      String line = raw.strip();
      var heading = HEADING.matcher(line);
      if (heading.matches()) {
        phase = heading.group(2);
        continue;
      }
      if (line.isEmpty()) {
        continue;
      }
      lines++;
      if (carriesWeight(line)) {
        String bullet = line.startsWith("- ") ? line.substring(2) : line;
        add(out, seen, key(bullet), "- " + (phase == null ? "" : "[" + phase + "] ") + bullet);
      }
    }
    if (out.length() == 0) {
      out.append("- ").append(lines).append(" earlier line(s) carried no file paths, errors or decisions.\n");
    }
    return SizeCap.cap(out.toString().strip(), maxChars);
  }

  static boolean carriesWeight(String line) {
    return PATH.matcher(line).find() || ERROR.matcher(line).find() || DECISION.matcher(line).find();
  }

  private static boolean add(StringBuilder out, Set<String> seen, String key, String line) {
    if (line.isEmpty() || !seen.add(key)) {
      return false;
    }
    out.append(line).append('\n');
    return true;
  }

  /** Lines that differ only in bullet, phase tag, case or spacing are the same line. */
  private static String key(String line) {
    String s = line.startsWith("- ") ? line.substring(2) : line;
    s = s.replaceFirst("^\\[[^\\]]*\\] ", "");
    return s.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
  }

  private static String between(String text, String open, String close) {
    int start = text.indexOf(open);
    if (start < 0) {
      return null;
    }
    int end = text.indexOf(close, start);
    return text.substring(start + open.length(), end < 0 ? text.length() : end);
  }
}
