package dev.orchestrate.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * The project's budget over windows of time ({@code budget:} in orchestrate.yaml), shared by every
 * run and every runner: US dollars and tokens per UTC day and per ISO week (Monday 00:00 UTC);
 * null: no limit.
 */
public record BudgetConfig(Double perDayUsd, Double perWeekUsd, Long tokensPerDay, Long tokensPerWeek) {
  public static final BudgetConfig NONE = new BudgetConfig(null, null, null, null);
  private static final Pattern BUDGET_LINE = Pattern.compile("^[ \\t{]*[\"']?budget[\"']?[ \\t]*:",
      Pattern.MULTILINE);
  private static final long MAX_SCANNED_BYTES = 1L << 20;

  /**
   * Whether the config {@code file} may have a {@code budget} section, found without parsing YAML
   * (as {@link StateConfig#mayBeSetIn}): {@code stats} parses the config only then.
   */
  static boolean mayBeSetIn(Path file) {
    try {
      return Files.size(file) > MAX_SCANNED_BYTES
          || BUDGET_LINE.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)).find();
    } catch (IOException e) {
      return true;
    }
  }

  public boolean isLimited() {
    return perDayUsd != null || perWeekUsd != null || tokensPerDay != null || tokensPerWeek != null;
  }
}
