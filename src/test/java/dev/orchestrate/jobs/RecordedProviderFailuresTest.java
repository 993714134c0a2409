package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the real CLIs printed when their provider failed (src/test/resources/agent-outputs,
 * recorded against local servers answering like the providers; its README says how), classified as
 * an attempt's end is: the preset's reader first, then the CLI's stderr, and only for an attempt
 * that failed (exit code not 0, or an error the reader saw). {@code -}: no provider's failure
 * (the agent's own failure or a success).
 */
class RecordedProviderFailuresTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static String resource(String path) throws IOException {
    try (InputStream in = RecordedProviderFailuresTest.class.getResourceAsStream("/agent-outputs/" + path)) {
      if (in == null) {
        throw new IOException("no fixture " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @ParameterizedTest(name = "{0}/{1} -> {2}")
  @CsvSource(nullValues = "-", value = {
      "claude-code-2.1.330, success, -, false",
      "claude-code-2.1.330, success-oauth, -, false",
      "claude-code-2.1.330, rate-limit-then-ok, -, false",
      "claude-code-2.1.330, usage-limit-api-key, USAGE_LIMIT, false",
      "claude-code-2.1.330, usage-limit-oauth, USAGE_LIMIT, true",
      "claude-code-2.1.330, usage-limit-oauth-weekly, USAGE_LIMIT, true",
      "claude-code-2.1.330, overloaded, RATE_LIMITED, false",
      "claude-code-2.1.330, rate-limit-persistent, RATE_LIMITED, false",
      "claude-code-2.1.330, unauthorized, AUTH, false",
      "claude-code-2.1.330, unauthorized-oauth, AUTH, false",
      "claude-code-2.1.330, forbidden, AUTH, false",
      "claude-code-2.1.330, billing, AUTH, false",
      "claude-code-2.1.330, cut-mid-stream, -, false",
      // killed after 60 s while it still retried: a stream that ends without a result event
      "claude-code-2.1.330, cut-mid-stream-killed, -, false",
      // a 529 the CLI did not retry (the API's x-should-retry: false, or CLAUDE_CODE_MAX_RETRIES=0)
      "claude-code-2.1.330, overloaded-no-retry, RATE_LIMITED, false",
      "claude-code-2.1.330, overloaded-max-retries-0, RATE_LIMITED, false",
      // cut by its own --max-budget-usd: neither the provider's limit nor the agent's failure
      "claude-code-2.1.330, budget-exhausted, BUDGET_EXHAUSTED, false",
      "claude-code-2.1.330, budget-exhausted-first-turn, BUDGET_EXHAUSTED, false",
      "claude-code-2.1.330, resume-after-budget-exhausted, BUDGET_EXHAUSTED, false",
      // killed while its provider held a request open: no result event (what agent.timeout leaves)
      "claude-code-2.1.330, hang-after-turn-killed, -, false",
      "codex-0.169.0, success, -, false",
      "codex-0.169.0, rate-limit-then-ok, -, false",
      "codex-0.169.0, usage-limit, USAGE_LIMIT, true",
      "codex-0.169.0, usage-limit-days, USAGE_LIMIT, true",
      "codex-0.169.0, rate-limit-persistent, RATE_LIMITED, false",
      "codex-0.169.0, overloaded, RATE_LIMITED, false",
      "codex-0.169.0, server-error, RATE_LIMITED, false",
      "codex-0.169.0, unauthorized, AUTH, false",
      "codex-0.169.0, forbidden, AUTH, false",
      "codex-0.169.0, billing, AUTH, false",
      // Codex's own sandbox could not start (Debian's bwrap 0.8, CODEX_HOME under /tmp): it exits 0
      "codex-0.169.0, own-sandbox-unavailable, SANDBOX, false",
      // the same, when the failed command left no event: nothing tells (docs/security.md says so)
      "codex-0.169.0, own-sandbox-unavailable-no-event, -, false",
      "gemini-cli-0.61.0, success, -, false",
      "gemini-cli-0.61.0, rate-limit-then-ok, -, false",
      "gemini-cli-0.61.0, usage-limit, USAGE_LIMIT, false",
      "gemini-cli-0.61.0, unauthorized, AUTH, false",
      "gemini-cli-0.61.0, forbidden, AUTH, false",
      "gemini-cli-0.61.0, billing, AUTH, false",
      "opencode-1.18.33, success, -, false",
      "opencode-1.18.33, rate-limit-then-ok, -, false",
      "opencode-1.18.33, rate-limit-persistent, RATE_LIMITED, false",
      "opencode-1.18.33, overloaded, RATE_LIMITED, false",
      "opencode-1.18.33, unauthorized, AUTH, false",
      "opencode-1.18.33, forbidden, AUTH, false",
      "opencode-1.18.33, billing, AUTH, false"})
  void each_recorded_failure_has_its_class(String cli, String name, String expected, boolean resetKnown)
      throws IOException {
    JsonNode meta = JSON.readTree(resource(cli + "/" + name + ".meta.json"));
    AgentPreset preset = cli.startsWith("claude") ? AgentPreset.CLAUDE : cli.startsWith("codex") ? AgentPreset.CODEX
        : cli.startsWith("gemini") ? AgentPreset.GEMINI : AgentPreset.OPENCODE;
    OutputReader reader = OutputReaders.of(preset);
    resource(cli + "/" + name + ".stdout").lines().forEach(reader::line);
    AgentReport report = reader.report();
    JsonNode exit = meta.path("exit_code");
    boolean failed = report.failed() || reader.stopNow() != null || exit.isNull() || exit.asInt() != 0;
    ProviderFailure provider = !failed ? null : reader.stopNow() != null ? reader.stopNow()
        : report.provider() != null ? report.provider()
            : ProviderText.classify(resource(cli + "/" + name + ".stderr")).orElse(null);
    assertEquals(expected, provider == null ? null : provider.kind().name(),
        cli + "/" + name + ": " + (provider == null ? report.error() : provider.message()));
    if (provider != null && provider.kind() == OutcomeClass.USAGE_LIMIT) {
      Instant recorded = Instant.parse(meta.path("recorded_at").asText());
      Optional<Instant> reset = provider.resetsAt(recorded.minusSeconds(5), ZoneOffset.UTC);
      assertEquals(resetKnown, reset.isPresent(), cli + "/" + name + ": " + provider.message());
    }
  }
}
