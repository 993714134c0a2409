package dev.orchestrate.cli;

import dev.orchestrate.item.Money;

import dev.orchestrate.outcome.Usage;
import dev.orchestrate.scheduler.Budget;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** How usage reads in every command's output: unknown figures stay null in JSON and "-" in text, never 0. */
final class UsageView {
  private UsageView() {
  }

  static Map<String, Object> json(Usage u) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("input_tokens", u.inputTokens());
    m.put("output_tokens", u.outputTokens());
    m.put("cache_read_tokens", u.cacheReadTokens());
    m.put("cache_write_tokens", u.cacheWriteTokens());
    m.put("total_tokens", u.totalTokens());
    m.put("cost_usd", money(u.costUsd()));
    return m;
  }

  /**
   * {@code 3,200 tokens (2,400 in, 70 out, 600 cache read, 100 cache write), $0.0116}; an agent that
   * reports tokens only (Codex, the Gemini CLI) ends {@code , no cost reported}, not {@code $-}.
   */
  static String text(Usage u) {
    if (u.isUnknown()) {
      return "not reported";
    }
    return tokens(u.totalTokens()) + " tokens (" + tokens(u.inputTokens()) + " in, " + tokens(u.outputTokens())
        + " out, " + tokens(u.cacheReadTokens()) + " cache read, " + tokens(u.cacheWriteTokens()) + " cache write), "
        + (u.costUsd() == null ? "no cost reported" : cost(u.costUsd()));
  }

  /** {@code ; budget $0.0500 (23%)}, or nothing without a budget. */
  static String budgetText(Usage spend, Budget budget) {
    StringBuilder text = new StringBuilder();
    if (budget.maxCostUsd() != null) {
      text.append("; budget ").append(Money.usd(budget.maxCostUsd()))
          .append(percent(spend.costUsd() == null ? null : spend.costUsd() / budget.maxCostUsd()));
    }
    if (budget.maxTokens() != null) {
      Long total = spend.totalTokens();
      text.append("; token budget ").append(tokens(budget.maxTokens()))
          .append(percent(total == null ? null : (double) total / budget.maxTokens()));
    }
    return text.toString();
  }

  /**
   * US dollars for JSON, rounded to 6 decimals (a millionth of a dollar), so that a sum of costs is
   * {@code 0.02324}, not {@code 0.023240000000000003}; null stays null.
   */
  static Double money(Double usd) {
    return (Double) Json.money(usd);
  }

  /**
   * The locale numbers are formatted in: {@link Locale#US}, whose digits, grouping and decimal
   * separators are {@link Locale#ROOT}'s, because {@link java.util.Formatter} looks no locale data up
   * for it. For any other locale, {@code ROOT} included, the first number formatted initialises the
   * JDK's locale providers and {@code DecimalFormatSymbols}: 8 % of {@code stats}' start-up (the
   * text view), a cost the floor does not pay (docs/benchmarks.md, issue 46, item 5).
   * {@code UsageViewTest} holds the two locales' output equal.
   */
  static final Locale NUMBERS = Locale.US;

  static String tokens(Long n) {
    return n == null ? "-" : String.format(NUMBERS, "%,d", n);
  }

  static String cost(Double usd) {
    return usd == null ? "$-" : String.format(NUMBERS, "$%.4f", usd);
  }

  /** {@code  (83% spent, past the 80% warning)}. */
  private static String percent(Double ratio) {
    if (ratio == null) {
      return " (spend not reported)";
    }
    Integer warning = Budget.warning(ratio);
    return String.format(NUMBERS, " (%.0f%% spent%s)", ratio * 100,
        warning == null ? "" : ", past the " + warning + "% warning");
  }
}
