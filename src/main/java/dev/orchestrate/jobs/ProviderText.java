package dev.orchestrate.jobs;

import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Recognises a provider's failure in an agent CLI's own error message or the tail of its stderr,
 * for the CLIs (or the cases) whose structured output does not say (docs/agents.md, "Provider
 * limits"). Only what a CLI prints about its provider is matched, never a bare number: "429"
 * alone in a test's output is not a rate limit. Auth wins over limits (a revoked key can also
 * read "quota"), and a usage limit over a rate limit.
 */
final class ProviderText {
  private static final List<Pattern> AUTH = patterns(
      "authentication_error", "authentication_failed", "invalid x-api-key", "invalid api key", "invalid_api_key",
      "incorrect api key", "api key not valid", "api_key_invalid", "permission_error", "billing_error",
      "credit balance is too low", "insufficient_quota", "oauth token has expired", "oauth token (?:was )?revoked",
      "please run /login", "\\b401\\b[^\\n]{0,40}unauthori[sz]ed", "unauthori[sz]ed[^\\n]{0,40}\\b401\\b",
      "status(?: code)?:? 401\\b", "status(?: code)?:? 403\\b", "\\(40[13]\\)", "your organization has been disabled",
      "does not have access to (?:claude|the model|model)", "does not have permission to use",
      "check your plan and billing details", "\"code\"\\s*:\\s*40[13]\\b", "permission_denied", "unauthenticated",
      "not logged in");
  private static final List<Pattern> USAGE = patterns(
      "you['\u2019]?ve hit your (?:[\\w-]+ )*limit", "usage limit (?:reached|has been reached)",
      "you['\u2019]?re out of extra usage",
      "usage_limit_reached", "terminalquotaerror", "exhausted your (?:daily |monthly )?quota",
      "quota will reset", "claude usage limit reached");
  private static final List<Pattern> RATE = patterns(
      "rate_limit_error", "rate limit(?:ed| exceeded| reached)?", "too many requests", "overloaded(?:_error)?",
      "status(?: code)?:? (?:429|529|503)\\b", "\\((?:429|529)\\)", "resource_exhausted", "exceeded retry limit",
      "server is busy", "at capacity", "experiencing high demand", "repeated 529");

  private ProviderText() {
  }

  /** The provider's failure this text describes, if it describes one. */
  static Optional<ProviderFailure> classify(String text) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    String t = text.length() > 16_000 ? text.substring(text.length() - 16_000) : text;
    String lower = t.toLowerCase(Locale.ROOT);
    String line = firstMatchingLine(t, lower);
    if (matches(AUTH, lower)) {
      return Optional.of(ProviderFailure.of(OutcomeClass.AUTH, line));
    }
    if (matches(USAGE, lower)) {
      return Optional.of(ProviderFailure.of(OutcomeClass.USAGE_LIMIT, line));
    }
    if (matches(RATE, lower)) {
      return Optional.of(ProviderFailure.of(OutcomeClass.RATE_LIMITED, line));
    }
    return Optional.empty();
  }

  private static boolean matches(List<Pattern> patterns, String lower) {
    for (Pattern p : patterns) {
      if (p.matcher(lower).find()) {
        return true;
      }
    }
    return false;
  }

  /** The line that says it (the message, not the whole tail), within 500 characters. */
  private static String firstMatchingLine(String text, String lower) {
    String[] lines = text.split("\n");
    String[] lowerLines = lower.split("\n");
    for (List<Pattern> group : List.of(AUTH, USAGE, RATE)) {
      for (int i = 0; i < lowerLines.length && i < lines.length; i++) {
        if (matches(group, lowerLines[i])) {
          String l = lines[i].strip();
          return l.length() > 500 ? l.substring(0, 500) + "..." : l;
        }
      }
    }
    String l = text.strip();
    return l.length() > 500 ? l.substring(0, 500) + "..." : l;
  }

  private static List<Pattern> patterns(String... regexes) {
    return java.util.Arrays.stream(regexes).map(Pattern::compile).toList();
  }
}
