package dev.orchestrate.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import dev.orchestrate.outcome.Usage;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Codex's {@code exec --json} events. Each {@code turn.completed} carries the turn's usage
 * ({@code input_tokens} includes {@code cached_input_tokens}, which is counted apart here); the last
 * {@code agent_message} item is the answer; {@code turn.failed} or an {@code error} event is a
 * failure with Codex's own message. Codex reports no cost.
 *
 * <p>A usage limit arrives as an {@code error} event, "You've hit your usage limit. … try again at
 * 3:28 PM." (or "in 3 days 6 hours"), or as the provider's body {@code usage_limit_reached} with
 * {@code resets_in_seconds}; other provider failures are read from the message
 * ({@link ProviderText}).
 */
final class CodexReader extends JsonEvents {

  private Usage usage = Usage.UNKNOWN;
  private String answer;
  private String error;
  /** A reset delay the provider's body stated ({@code resets_in_seconds}), kept with the error it came with. */
  private Duration resetIn;
  private boolean usageLimitBody;
  /**
   * What a command said when Codex's own sandbox could not start it: bubblewrap's error (its helper
   * not found, a namespace refused) or the sandbox helper's panic. Codex goes on and exits 0 as if
   * the command had run (recorded: agent-outputs/codex-0.169.0/own-sandbox-unavailable).
   */
  private String sandboxFailure;
  private static final Pattern SANDBOX_FAILURE = Pattern.compile(
      "bwrap: |thread 'main' panicked at linux-sandbox/");

  @Override
  void event(JsonNode event) {
    String type = event.path("type").asText();
    switch (type) {
      case "item.completed" -> {
        JsonNode item = event.path("item");
        if ("agent_message".equals(item.path("type").asText())) {
          String text = text(item.get("text"));
          if (text != null) {
            answer = text;
          }
        } else if ("command_execution".equals(item.path("type").asText())
            && "failed".equals(item.path("status").asText()) && sandboxFailure == null) {
          String output = text(item.get("aggregated_output"));
          if (output != null && SANDBOX_FAILURE.matcher(output).lookingAt()) {
            sandboxFailure = output.strip().lines().findFirst().orElse(output.strip());
          }
        }
      }
      case "turn.completed" -> {
        JsonNode u = event.path("usage");
        Long input = count(u.get("input_tokens"), "usage.input_tokens", Figure.INPUT);
        // The input count includes the cached one: a cached count refused leaves the fresh input unknown too.
        Long cached = count(u.get("cached_input_tokens"), "usage.cached_input_tokens", Figure.CACHE_READ,
            Figure.INPUT);
        Long fresh = input == null ? null : Math.max(0, input - (cached == null ? 0 : cached));
        usage = usage.plus(new Usage(fresh, count(u.get("output_tokens"), "usage.output_tokens", Figure.OUTPUT),
            cached, count(u.get("cache_write_input_tokens"), "usage.cache_write_input_tokens", Figure.CACHE_WRITE),
            null));
        error = null; // a later turn that completes supersedes an error reported on the way
        resetIn = null;
        usageLimitBody = false;
      }
      case "turn.failed" -> error = message(event.path("error").get("message"), "Codex reported a failed turn");
      case "error" -> error = message(event.get("message"), "Codex reported an error");
      default -> {
        // thread.started, turn.started, item.started, item.updated: nothing to keep
      }
    }
  }

  @Override
  public AgentReport report() {
    if (sandboxFailure != null && error == null) {
      String message = "Codex's own sandbox could not start its commands (" + sandboxFailure + "): no command it ran "
          + "did anything; run Codex with --sandbox danger-full-access inside agent.sandbox: bwrap, or keep CODEX_HOME "
          + "out of the temporary directory (docs/security.md, The sandbox)";
      return new AgentReport(checked(usage), answer, message, ProviderFailure.of(OutcomeClass.SANDBOX, message));
    }
    return new AgentReport(checked(usage), answer, error, provider());
  }

  private ProviderFailure provider() {
    if (error == null) {
      return null;
    }
    if (usageLimitBody) {
      return new ProviderFailure(OutcomeClass.USAGE_LIMIT, error, null, resetIn);
    }
    ProviderFailure said = ProviderText.classify(error).orElse(null);
    return said == null || resetIn == null ? said : new ProviderFailure(said.kind(), said.message(), null, resetIn);
  }

  /** Codex passes an API error on as the provider's raw JSON body: its error.message is the readable part. */
  private String message(JsonNode node, String otherwise) {
    String text = text(node);
    if (text == null) {
      return otherwise;
    }
    if (text.startsWith("{")) {
      try {
        JsonNode body = JSON.readTree(text).path("error");
        if ("usage_limit_reached".equals(body.path("type").asText()) || "usage_limit_reached".equals(
            body.path("code").asText())) {
          usageLimitBody = true;
        }
        long seconds = body.path("resets_in_seconds").asLong(-1);
        if (seconds >= 0 && seconds < 100L * 86_400) {
          resetIn = Duration.ofSeconds(seconds);
        }
        String inner = text(body.get("message"));
        if (inner != null) {
          return inner;
        }
      } catch (JsonProcessingException e) {
        // not JSON after all: the text as it is
      }
    }
    return text;
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  String sessionOf(JsonNode event) {
    return "thread.started".equals(event.path("type").asText()) && event.path("thread_id").isTextual()
        ? event.path("thread_id").asText() : null;
  }
}
