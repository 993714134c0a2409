package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The provider's failures each reader recognises, in the event shapes the CLIs print (issue 28):
 * never the exit code or a subtype alone.
 */
class ProviderFailuresTest {
  private static final Instant NOW = Instant.parse("2026-11-26T10:30:00Z");

  private static OutputReader feed(AgentPreset preset, String... lines) {
    OutputReader reader = OutputReaders.of(preset);
    for (String line : lines) {
      reader.line(line);
    }
    return reader;
  }

  private static final String INIT = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s-1\"}";

  @Test
  void claude_is_error_with_subtype_success_and_a_429_without_retries_is_the_accounts_usage_limit() {
    AgentReport report = feed(AgentPreset.CLAUDE, INIT,
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"API Error: Request rejected (429)\"}]},"
            + "\"error\":\"rate_limit\",\"api_error_status\":429}",
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"terminal_reason\":\"api_error\","
            + "\"api_error_status\":429,\"result\":\"API Error: Request rejected (429) · this account has reached its limit\"}")
        .report();
    assertNotNull(report.error());
    assertEquals(OutcomeClass.USAGE_LIMIT, report.provider().kind());
    assertTrue(report.provider().resetsAt(NOW, ZoneOffset.UTC).isEmpty(), "an API key names no reset");
  }

  @Test
  void claude_subscription_limit_reads_its_reset_from_the_rate_limit_event_in_seconds_or_milliseconds() {
    for (long resetsAt : new long[] {1_795_700_000L, 1_795_700_000_000L}) {
      AgentReport report = feed(AgentPreset.CLAUDE, INIT,
          "{\"type\":\"rate_limit_event\",\"rate_limit_info\":{\"status\":\"rejected\",\"resetsAt\":" + resetsAt
              + ",\"rateLimitType\":\"five_hour\"}}",
          "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,"
              + "\"result\":\"You've hit your 5-hour limit · resets 4:04am (UTC)\"}")
          .report();
      assertEquals(OutcomeClass.USAGE_LIMIT, report.provider().kind());
      assertEquals(Instant.ofEpochSecond(1_795_700_000L),
          report.provider().resetsAt(NOW, ZoneOffset.UTC).orElseThrow());
    }
  }

  @Test
  void claude_subscription_limit_without_an_event_reads_the_reset_from_its_message() {
    AgentReport report = feed(AgentPreset.CLAUDE, INIT,
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,"
            + "\"result\":\"You've hit your limit · resets 1pm (UTC)\"}")
        .report();
    assertEquals(OutcomeClass.USAGE_LIMIT, report.provider().kind());
    assertEquals(Instant.parse("2026-11-26T13:00:00Z"), report.provider().resetsAt(NOW, ZoneOffset.UTC).orElseThrow());
  }

  @Test
  void claude_gives_up_on_a_transient_429_or_529_after_its_retries_as_rate_limited_with_its_last_delay() {
    AgentReport report = feed(AgentPreset.CLAUDE, INIT,
        "{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":1,\"max_retries\":10,\"retry_delay_ms\":520,"
            + "\"error_status\":529,\"error\":\"overloaded\"}",
        "{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":10,\"max_retries\":10,\"retry_delay_ms\":38000,"
            + "\"error_status\":529,\"error\":\"overloaded\"}",
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"api_error_status\":529,"
            + "\"result\":\"API Error: 529 Overloaded\"}")
        .report();
    assertEquals(OutcomeClass.RATE_LIMITED, report.provider().kind());
    assertEquals(Duration.ofSeconds(38), report.provider().resetIn());
  }

  /**
   * Issue 44: an overloaded answer the CLI did not retry (no api_retry, no api_error_status) was
   * read as a 429 the CLI did not retry, the account's usage limit, and paused the agent with no
   * end. 529 and overloaded are transient wherever they appear: rate_limited.
   */
  @Test
  void claude_an_overloaded_529_without_retries_or_status_is_rate_limited_not_a_usage_limit() {
    AgentReport report = feed(AgentPreset.CLAUDE, INIT,
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"result\":\"API Error: 529 "
            + "{\\\"type\\\":\\\"error\\\",\\\"error\\\":{\\\"type\\\":\\\"overloaded_error\\\","
            + "\\\"message\\\":\\\"Overloaded\\\"}}\"}")
        .report();
    assertTrue(report.error().contains("overloaded_error"), report.error());
    assertEquals(OutcomeClass.RATE_LIMITED, report.provider().kind());
  }

  @Test
  void claude_api_retry_of_a_401_stops_the_agent_at_once_as_auth() {
    OutputReader reader = feed(AgentPreset.CLAUDE, INIT);
    assertNull(reader.stopNow());
    reader.line("{\"type\":\"system\",\"subtype\":\"api_retry\",\"attempt\":1,\"max_retries\":10,"
        + "\"retry_delay_ms\":600,\"error_status\":401,\"error\":\"authentication_failed\"}");
    ProviderFailure stop = reader.stopNow();
    assertNotNull(stop, "no waiting out ten retries of a key that can never work");
    assertEquals(OutcomeClass.AUTH, stop.kind());
    assertEquals(OutcomeClass.AUTH, reader.report().provider().kind(), "the stream ends without a result");
  }

  @Test
  void claude_billing_and_credit_errors_are_auth() {
    AgentReport report = feed(AgentPreset.CLAUDE, INIT,
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"Credit balance is too low\"}]},"
            + "\"error\":\"billing_error\"}",
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"result\":\"Credit balance is too low\"}")
        .report();
    assertEquals(OutcomeClass.AUTH, report.provider().kind());
  }

  @Test
  void claude_permission_denials_that_end_the_work_in_an_error_are_denied_and_a_success_is_a_success() {
    String denial = "\"permission_denials\":[{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf x\"}}]";
    AgentReport failed = feed(AgentPreset.CLAUDE, INIT,
        "{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,\"result\":\"could not proceed\","
            + denial + "}")
        .report();
    assertEquals(OutcomeClass.DENIED, failed.provider().kind());
    AgentReport fine = feed(AgentPreset.CLAUDE, INIT,
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done anyway\"," + denial + "}")
        .report();
    assertNull(fine.error());
    assertNull(fine.provider());
  }

  @Test
  void claude_agent_failures_are_not_the_providers() {
    AgentReport report = feed(AgentPreset.CLAUDE, INIT,
        "{\"type\":\"result\",\"subtype\":\"error_max_turns\",\"is_error\":true,\"result\":\"tests still fail: 429 of 500 "
            + "passed\"}")
        .report();
    assertNotNull(report.error());
    assertNull(report.provider(), "a number in the agent's words is not a status");
  }

  @Test
  void codex_usage_limit_message_and_body_with_resets_in_seconds() {
    AgentReport said = feed(AgentPreset.CODEX, "{\"type\":\"thread.started\",\"thread_id\":\"t-1\"}",
        "{\"type\":\"error\",\"message\":\"You've hit your usage limit. Upgrade to Pro or try again at 3:28 PM.\"}",
        "{\"type\":\"turn.failed\",\"error\":{\"message\":\"You've hit your usage limit. Upgrade to Pro or try again at "
            + "3:28 PM.\"}}")
        .report();
    assertEquals(OutcomeClass.USAGE_LIMIT, said.provider().kind());
    assertEquals(Instant.parse("2026-11-26T15:28:00Z"), said.provider().resetsAt(NOW, ZoneOffset.UTC).orElseThrow());

    AgentReport body = feed(AgentPreset.CODEX, "{\"type\":\"turn.failed\",\"error\":{\"message\":"
        + "\"{\\\"error\\\":{\\\"type\\\":\\\"usage_limit_reached\\\",\\\"message\\\":\\\"The usage limit has been "
        + "reached\\\",\\\"resets_in_seconds\\\":600}}\"}}").report();
    assertEquals(OutcomeClass.USAGE_LIMIT, body.provider().kind());
    assertEquals(NOW.plusSeconds(600), body.provider().resetsAt(NOW, ZoneOffset.UTC).orElseThrow());
  }

  @Test
  void codex_invalid_key_is_auth_and_a_retry_limit_on_429_is_rate_limited() {
    assertEquals(OutcomeClass.AUTH, feed(AgentPreset.CODEX, "{\"type\":\"error\",\"message\":\"unexpected status 401 "
        + "Unauthorized: Incorrect API key provided\"}").report().provider().kind());
    assertEquals(OutcomeClass.RATE_LIMITED, feed(AgentPreset.CODEX, "{\"type\":\"error\",\"message\":\"stream error: "
        + "exceeded retry limit, last status: 429 Too Many Requests\"}").report().provider().kind());
  }

  @Test
  void gemini_terminal_quota_error_is_a_usage_limit_with_its_reset() {
    AgentReport report = feed(AgentPreset.GEMINI, "{\"type\":\"error\",\"message\":\"TerminalQuotaError: You have "
        + "exhausted your daily quota on this model. Your quota will reset after 1h49m8s.\"}").report();
    assertEquals(OutcomeClass.USAGE_LIMIT, report.provider().kind());
    assertEquals(Instant.parse("2026-11-26T12:19:08Z"), report.provider().resetsAt(NOW, ZoneOffset.UTC).orElseThrow());
  }
}
