package dev.orchestrate.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import dev.orchestrate.outcome.Usage;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Claude Code's {@code --output-format stream-json} (and {@code json}, whose single line is the
 * same result event). The last {@code {"type":"result"}} event speaks for the attempt: its
 * {@code total_cost_usd}, its {@code result} text, and {@code is_error} or an {@code error_*}
 * subtype (max turns, max budget, an error during execution) for a failure. Before a result
 * arrives, the last assistant text is kept as the answer.
 *
 * <p>Tokens: a result's {@code usage} may hold less than the run spent (after a budget cut, 0 or
 * the last turn alone), so each figure is the largest of its {@code usage}, the run's own totals per
 * model ({@code model_usage_since_last_result}, else {@code modelUsage}, which after a resume counts
 * the whole session) and the sum of the assistant messages seen. A stream that ends without a result
 * (a timeout, a stall, a cancel, a kill) reports that sum: each message once, though Claude Code
 * prints a message's content blocks as several events with one id (recorded:
 * agent-outputs/claude-code-2.1.330/hang-after-turn-killed). Those events carry the usage of the
 * message's start, so the sum's output tokens are low; no cost is printed before the result.
 *
 * <p>The provider's failures, as Claude Code reports them (never the exit code or the subtype
 * alone: an API error ends with {@code "is_error":true} and {@code "subtype":"success"}):
 * <ul>
 *   <li>{@code {"type":"system","subtype":"api_retry","error_status":401|403,...}}: a key the
 *   provider refused, which the CLI would retry ten times: stop now, {@code auth};</li>
 *   <li>{@code api_retry} with 429/529 before an error result: the CLI gave up on a transient
 *   limit, {@code rate_limited} (its last {@code retry_delay_ms} is the stated delay);</li>
 *   <li>{@code {"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":…}}}
 *   or "You've hit your … limit · resets …": {@code usage_limit} with its reset;</li>
 *   <li>an error result with {@code api_error_status} 429 and no retries before it (the account's
 *   limit, which the CLI does not retry): {@code usage_limit}, reset unknown;</li>
 *   <li>401/403, {@code billing_error}, "Credit balance is too low": {@code auth};</li>
 *   <li>an error result with {@code permission_denials}: {@code denied};</li>
 *   <li>{@code error_max_budget_usd} ({@code terminal_reason: budget_exhausted}): the CLI's own
 *   {@code --max-budget-usd} cut the run, {@code budget_exhausted} (not the provider's doing, but
 *   not the agent's failure either).</li>
 * </ul>
 */
final class ClaudeReader extends JsonEvents {

  /** The recent message ids whose usage is counted in {@link #turns}: enough for sub-agents' interleaved messages. */
  static final int RECENT_MESSAGES = 64;
  /** The longest message id kept: an id is the provider's short token, anything longer is cut for the key. */
  private static final int ID_MAX_CHARS = 200;
  /** The most models a result's per-model usage is read for; more are not counted. */
  static final int MAX_MODELS = 64;

  private AgentReport result;
  private String lastAssistantText;
  /** The usage of the assistant messages seen, each message once: what the run spent before its result. */
  private Usage turns = Usage.UNKNOWN;
  /** The usage counted per recent message id, least recently seen first. */
  private final Map<String, Usage> counted = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Usage> eldest) {
      return size() > RECENT_MESSAGES;
    }
  };
  /** The provider refused the key while the CLI retries it: the attempt is over. */
  private ProviderFailure stop;
  /**
   * An overloaded provider in the error's own words (529, {@code overloaded_error}): transient
   * wherever it appears, never the account's limit, whether or not the CLI retried it.
   */
  private static final Pattern OVERLOADED = Pattern.compile(
      "(?i)\\b529\\b|overloaded");
  /** The last transient retry the CLI announced (429/529/overloaded), with its delay. */
  private ProviderFailure retrying;
  /** A rate_limit_event that said the account's limit is reached. */
  private ProviderFailure rejected;
  /** The api_error_status or error kind an assistant event carried (Claude Code's synthetic error message). */
  private int assistantStatus;
  private String assistantError;

  @Override
  void event(JsonNode event) {
    String type = event.path("type").asText();
    if ("assistant".equals(type)) {
      messageUsage(event.path("message"));
      String text = assistantText(event.path("message").path("content"));
      if (text != null) {
        lastAssistantText = text;
      }
      if (event.hasNonNull("error")) {
        assistantError = text(event.get("error"));
        assistantStatus = event.path("api_error_status").asInt(0);
      }
    } else if ("system".equals(type) && "api_retry".equals(event.path("subtype").asText())) {
      apiRetry(event);
    } else if ("rate_limit_event".equals(type)) {
      JsonNode info = event.path("rate_limit_info");
      if ("rejected".equals(info.path("status").asText())) {
        long at = info.path("resetsAt").canConvertToLong() ? info.path("resetsAt").asLong() : 0;
        rejected = new ProviderFailure(OutcomeClass.USAGE_LIMIT, "the account's usage limit is reached"
            + (info.hasNonNull("rateLimitType") ? " (" + text(info.get("rateLimitType")) + ")" : ""),
            at > 0 ? at : null, null);
      }
    } else if ("result".equals(type)) {
      result = result(event);
    }
  }

  /**
   * Adds a message's usage to {@link #turns}, once per message id: a later event of the same
   * message adds only what its figures grew by.
   */
  private void messageUsage(JsonNode message) {
    JsonNode u = message.path("usage");
    if (!u.isObject()) {
      return;
    }
    Usage now = new Usage(count(u.get("input_tokens"), "message.usage.input_tokens", Figure.INPUT),
        count(u.get("output_tokens"), "message.usage.output_tokens", Figure.OUTPUT),
        count(u.get("cache_read_input_tokens"), "message.usage.cache_read_input_tokens", Figure.CACHE_READ),
        count(u.get("cache_creation_input_tokens"), "message.usage.cache_creation_input_tokens", Figure.CACHE_WRITE),
        null);
    String id = message.path("id").isTextual() ? message.path("id").asText() : null;
    if (id == null) {
      turns = turns.plus(now);
      return;
    }
    id = id.length() > ID_MAX_CHARS ? id.substring(0, ID_MAX_CHARS) : id;
    Usage before = counted.get(id);
    counted.put(id, before == null ? now : largest(before, now));
    turns = turns.plus(before == null ? now : grown(before, now));
  }

  /** Figure by figure, the larger; a figure known on one side only is that one. Tokens only. */
  static Usage largest(Usage a, Usage b) {
    return new Usage(max(a.inputTokens(), b.inputTokens()), max(a.outputTokens(), b.outputTokens()),
        max(a.cacheReadTokens(), b.cacheReadTokens()), max(a.cacheWriteTokens(), b.cacheWriteTokens()), null);
  }

  /** Figure by figure, how much {@code now} is above {@code before} (0 when it is not); tokens only. */
  private static Usage grown(Usage before, Usage now) {
    return new Usage(above(now.inputTokens(), before.inputTokens()), above(now.outputTokens(), before.outputTokens()),
        above(now.cacheReadTokens(), before.cacheReadTokens()),
        above(now.cacheWriteTokens(), before.cacheWriteTokens()), null);
  }

  private static Long max(Long a, Long b) {
    return a == null ? b : b == null ? a : Long.valueOf(Math.max(a, b));
  }

  private static Long above(Long now, Long before) {
    return now == null ? null : before == null ? now : Long.valueOf(Math.max(0, now - before));
  }

  private void apiRetry(JsonNode event) {
    int status = event.path("error_status").asInt(0);
    String error = event.path("error").asText("");
    String what = "the API answered " + (status == 0 ? error : status + (error.isEmpty() ? "" : " " + error))
        + " (Claude Code retry " + event.path("attempt").asInt(0) + " of " + event.path("max_retries").asInt(0) + ")";
    if (status == 401 || status == 403 || error.equals("authentication_failed") || error.equals("billing_error")
        || error.equals("permission_error")) {
      stop = ProviderFailure.of(OutcomeClass.AUTH, what + ": the key is refused, so orchestrate stopped it");
    } else {
      long delay = event.path("retry_delay_ms").canConvertToLong() ? event.path("retry_delay_ms").asLong() : -1;
      retrying = new ProviderFailure(OutcomeClass.RATE_LIMITED, what, null,
          delay >= 0 && delay < 86_400_000L ? Duration.ofMillis(delay) : null);
    }
  }

  @Override
  public ProviderFailure stopNow() {
    return stop;
  }

  @Override
  public AgentReport report() {
    if (result != null) {
      return result;
    }
    // no result event: the stream ended (or was stopped) before it; what its messages spent is known
    Usage spent = checked(turns);
    ProviderFailure provider = stop != null ? stop : rejected;
    if (provider != null) {
      return new AgentReport(spent, lastAssistantText, provider.message(), provider);
    }
    return lastAssistantText == null && spent.isUnknown() ? AgentReport.NONE
        : new AgentReport(spent, lastAssistantText, null);
  }

  private AgentReport result(JsonNode event) {
    forgetRefusals(); // the last result speaks for the attempt, its figures too
    JsonNode usage = event.path("usage");
    Usage reported = new Usage(count(usage.get("input_tokens"), "usage.input_tokens", Figure.INPUT),
        count(usage.get("output_tokens"), "usage.output_tokens", Figure.OUTPUT),
        count(usage.get("cache_read_input_tokens"), "usage.cache_read_input_tokens", Figure.CACHE_READ),
        count(usage.get("cache_creation_input_tokens"), "usage.cache_creation_input_tokens", Figure.CACHE_WRITE),
        null);
    boolean ownRun = event.path("model_usage_since_last_result").isObject();
    Usage perModel = perModel(event.path(ownRun ? "model_usage_since_last_result" : "modelUsage"),
        ownRun ? "model_usage_since_last_result" : "modelUsage");
    Usage tokens = largest(largest(reported, perModel), turns);
    Usage spent = checked(new Usage(tokens.inputTokens(), tokens.outputTokens(), tokens.cacheReadTokens(),
        tokens.cacheWriteTokens(), amount(event.get("total_cost_usd"), "total_cost_usd")));
    String subtype = event.path("subtype").asText("");
    String text = text(event.get("result"));
    boolean failed = event.path("is_error").asBoolean(false) || subtype.startsWith("error");
    if (!failed) {
      return new AgentReport(spent, text != null ? text : lastAssistantText, null);
    }
    String error = text != null ? text : errors(event.get("errors"));
    if (error == null) {
      error = "Claude Code ended with " + (subtype.isEmpty() ? "an error" : subtype);
    } else if (!subtype.isEmpty() && !"success".equals(subtype)) {
      error = subtype + ": " + error;
    }
    return new AgentReport(spent, lastAssistantText, error, provider(event, error));
  }

  /**
   * The tokens of a result's per-model usage ({@code {"model": {"inputTokens": …, "outputTokens": …,
   * "cacheReadInputTokens": …, "cacheCreationInputTokens": …}}}), summed over its first
   * {@link #MAX_MODELS} models; unknown when there is none.
   */
  private Usage perModel(JsonNode models, String field) {
    Usage sum = Usage.UNKNOWN;
    if (!models.isObject()) {
      return sum;
    }
    int seen = 0;
    for (JsonNode m : (Iterable<JsonNode>) models::elements) {
      if (++seen > MAX_MODELS) {
        break;
      }
      sum = sum.plus(new Usage(count(m.get("inputTokens"), field + ".*.inputTokens", Figure.INPUT),
          count(m.get("outputTokens"), field + ".*.outputTokens", Figure.OUTPUT),
          count(m.get("cacheReadInputTokens"), field + ".*.cacheReadInputTokens", Figure.CACHE_READ),
          count(m.get("cacheCreationInputTokens"), field + ".*.cacheCreationInputTokens", Figure.CACHE_WRITE), null));
    }
    return sum;
  }

  /** Whether the provider, not the agent's work, ended a failed attempt (see the class comment). */
  private ProviderFailure provider(JsonNode event, String error) {
    if (stop != null) {
      return stop;
    }
    if ("error_max_budget_usd".equals(event.path("subtype").asText())
        || "budget_exhausted".equals(event.path("terminal_reason").asText())) {
      return ProviderFailure.of(OutcomeClass.BUDGET_EXHAUSTED, error);
    }
    int status = event.path("api_error_status").asInt(assistantStatus);
    String kind = assistantError == null ? "" : assistantError;
    ProviderFailure said = ProviderText.classify(error).orElse(null);
    if (status == 401 || status == 403 || kind.equals("authentication_failed") || kind.equals("billing_error")
        || said != null && said.kind() == OutcomeClass.AUTH) {
      return ProviderFailure.of(OutcomeClass.AUTH, error);
    }
    if (rejected != null || said != null && said.kind() == OutcomeClass.USAGE_LIMIT) {
      Long at = rejected == null ? null : rejected.resetEpoch();
      return new ProviderFailure(OutcomeClass.USAGE_LIMIT, error, at, null);
    }
    if (status == 429 || status == 529 || kind.equals("rate_limit") || kind.equals("overloaded")
        || said != null && said.kind() == OutcomeClass.RATE_LIMITED) {
      if (retrying != null || status == 529 || kind.equals("overloaded") || OVERLOADED.matcher(error).find()) {
        // the CLI retried a transient limit and gave up
        return new ProviderFailure(OutcomeClass.RATE_LIMITED, error, null,
            retrying == null ? null : retrying.resetIn());
      }
      // a 429 the CLI did not retry: the account's limit (with an API key it names no reset)
      return ProviderFailure.of(OutcomeClass.USAGE_LIMIT, error);
    }
    JsonNode denials = event.get("permission_denials");
    if (denials != null && denials.isArray() && !denials.isEmpty()) {
      return ProviderFailure.of(OutcomeClass.DENIED, error + " (" + denials.size() + " permission denial"
          + (denials.size() == 1 ? "" : "s") + ")");
    }
    return null;
  }

  private static String errors(JsonNode errors) {
    if (errors == null || !errors.isArray() || errors.isEmpty()) {
      return null;
    }
    StringBuilder all = new StringBuilder();
    for (JsonNode e : errors) {
      if (e.isTextual()) {
        all.append(all.length() == 0 ? "" : "; ").append(e.asText());
      }
    }
    return text(new TextNode(all.toString()));
  }

  private static String assistantText(JsonNode content) {
    if (!content.isArray()) {
      return null;
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode block : content) {
      if ("text".equals(block.path("type").asText()) && block.path("text").isTextual()) {
        text.append(text.length() == 0 ? "" : "\n").append(block.path("text").asText());
        if (text.length() > AgentOutcome.TEXT_MAX_CHARS * 2) {
          break;
        }
      }
    }
    return text(new TextNode(text.toString()));
  }

  @Override
  String sessionOf(JsonNode event) {
    return event.path("session_id").isTextual() ? event.path("session_id").asText() : null;
  }
}
