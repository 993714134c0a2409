package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.outcome.ProviderFailure;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the CLIs print about their provider, recognised in an error message or stderr; and what is not. */
class ProviderTextTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', nullValues = "-", value = {
      "Attempt 1 failed with status 429. Retrying with backoff...|RATE_LIMITED",
      "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"}}|RATE_LIMITED",
      "Error: 401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}|AUTH",
      "API key not valid. Please pass a valid API key.|AUTH",
      "Your credit balance is too low to access the Anthropic API.|AUTH",
      "You exceeded your current quota (insufficient_quota)|AUTH",
      "OAuth token has expired. Please obtain a new token or refresh your existing token.|AUTH",
      "You're out of extra usage · resets 5pm (UTC)|USAGE_LIMIT",
      "TerminalQuotaError: Your quota will reset after 2h.|USAGE_LIMIT",
      // as the real CLIs printed them (src/test/resources/agent-outputs)
      "You’ve hit your usage limit. Upgrade to Pro, or try again in 3 days 6 hours 57 minutes.|USAGE_LIMIT",
      "Quota exceeded. Check your plan and billing details.|AUTH",
      "Project `proj_fake` does not have access to model `gpt-5`|AUTH",
      "Selected model is at capacity. Please try a different model.|RATE_LIMITED",
      "We’re currently experiencing high demand, which may cause temporary errors.|RATE_LIMITED",
      "[API Error: {\"error\":{\"code\":403,\"message\":\"The caller does not have permission\"}}]|AUTH",
      "Your API key does not have permission to use the specified resource.|AUTH",
      "Not logged in · Please run /login|AUTH",
      "API Error: Repeated 529 Overloaded errors. The API is at capacity|RATE_LIMITED",
      "FAILED tests/test_rate.py::test_429_is_retried - AssertionError|-",
      "error: the build failed with exit code 401|-",
      "All 429 tests passed|-",
      "|-"})
  void classifies(String text, String expected) {
    Optional<ProviderFailure> got = ProviderText.classify(text);
    assertEquals(Optional.ofNullable(expected), got.map(f -> f.kind().name()), text);
  }
}
