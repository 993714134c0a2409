package dev.orchestrate.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * A scripted model behind the Gemini API (generativelanguage v1beta) on 127.0.0.1, as the Gemini CLI
 * reaches it with {@code GOOGLE_GEMINI_BASE_URL} and an API key: {@code :streamGenerateContent}
 * (SSE) for the conversation, {@code :generateContent} for its side requests (the model router's
 * complexity classifier, which gets the JSON it asks for), {@code :countTokens}. {@link Mode}
 * scripts failures as Google sends them (google.rpc.Status with QuotaFailure, RetryInfo and
 * ErrorInfo details); they answer every model request, or only the first {@link #failFirst}.
 */
final class FakeGemini extends FakeModelServer {

  enum Mode {
    /** a short text */
    ANSWER_ONLY,
    /** 429 RESOURCE_EXHAUSTED on a per-day quota (QuotaFailure GenerateRequestsPerDay…, RetryInfo) */
    USAGE_LIMIT,
    /** 429 RESOURCE_EXHAUSTED on a per-minute quota with RetryInfo 5s, as for a burst */
    RATE_LIMITED,
    /** 503 UNAVAILABLE: the model is overloaded */
    OVERLOADED,
    /** 400 INVALID_ARGUMENT API_KEY_INVALID: Google's answer to a wrong API key (it sends no 401) */
    UNAUTHORIZED,
    /** 403 PERMISSION_DENIED */
    FORBIDDEN,
    /** 429 RESOURCE_EXHAUSTED with "limit: 0": the project has no quota at all without billing */
    BILLING
  }

  static final int RATE_LIMIT_RETRY_SECONDS = 5;
  static final String ANSWER = "Hello from the fake model.";
  private static final ObjectMapper JSON = new ObjectMapper();
  volatile Mode mode = Mode.ANSWER_ONLY;

  FakeGemini() throws IOException {
    super();
  }

  /** For GOOGLE_GEMINI_BASE_URL: the SDK appends /v1beta/models/…. */
  String baseUrl() {
    return root();
  }

  @Override
  protected void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      String path = exchange.getRequestURI().getPath();
      if (path.endsWith(":countTokens")) {
        respond(exchange, 200, "application/json", "{\"totalTokens\": 10}");
        return;
      }
      boolean stream = path.endsWith(":streamGenerateContent");
      if (!stream && !path.endsWith(":generateContent")) {
        respond(exchange, 404, "application/json", status(404, "Requested entity was not found.", "NOT_FOUND",
            JSON.createArrayNode()));
        return;
      }
      requests.add(JSON.readTree(body));
      Mode failure = mode;
      if (failure != Mode.ANSWER_ONLY && failsNow()) {
        fail(exchange, failure, path.substring(path.lastIndexOf('/') + 1, path.lastIndexOf(':')));
        return;
      }
      if (stream) {
        respond(exchange, 200, "text/event-stream", "data: " + answer(ANSWER) + "\r\n\r\n");
      } else {
        respond(exchange, 200, "application/json",
            answer("{\"complexity_reasoning\": \"A short answer.\", \"complexity_score\": 5}"));
      }
    }
  }

  private static String answer(String text) {
    ObjectNode candidate = JSON.createObjectNode();
    ObjectNode content = candidate.putObject("content");
    content.putArray("parts").addObject().put("text", text);
    content.put("role", "model");
    candidate.put("finishReason", "STOP").put("index", 0);
    ObjectNode response = JSON.createObjectNode();
    response.putArray("candidates").add(candidate);
    response.putObject("usageMetadata").put("promptTokenCount", 10).put("candidatesTokenCount", 5)
        .put("totalTokenCount", 15);
    return response.put("modelVersion", "gemini-2.5-pro").toString();
  }

  private void fail(HttpExchange exchange, Mode failure, String model) throws IOException {
    ArrayNode details = JSON.createArrayNode();
    switch (failure) {
      case USAGE_LIMIT -> {
        quotaFailure(details, "generate_content_free_tier_requests",
            "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
            model, "50");
        help(details);
        details.addObject().put("@type", "type.googleapis.com/google.rpc.RetryInfo").put("retryDelay", "39s");
        respond(exchange, 429, "application/json", status(429, quotaMessage("generate_content_free_tier_requests",
            50, model) + "\nPlease retry in 39.563847124s.", "RESOURCE_EXHAUSTED", details));
      }
      case RATE_LIMITED -> {
        quotaFailure(details, "generate_content_free_tier_requests",
            "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", model, "5");
        help(details);
        details.addObject().put("@type", "type.googleapis.com/google.rpc.RetryInfo")
            .put("retryDelay", RATE_LIMIT_RETRY_SECONDS + "s");
        respond(exchange, 429, "application/json", status(429, quotaMessage("generate_content_free_tier_requests",
            5, model) + "\nPlease retry in " + RATE_LIMIT_RETRY_SECONDS + ".2s.", "RESOURCE_EXHAUSTED", details));
      }
      case OVERLOADED -> respond(exchange, 503, "application/json",
          status(503, "The model is overloaded. Please try again later.", "UNAVAILABLE", details));
      case UNAUTHORIZED -> {
        ObjectNode info = details.addObject().put("@type", "type.googleapis.com/google.rpc.ErrorInfo")
            .put("reason", "API_KEY_INVALID").put("domain", "googleapis.com");
        info.putObject("metadata").put("service", "generativelanguage.googleapis.com");
        details.addObject().put("@type", "type.googleapis.com/google.rpc.LocalizedMessage").put("locale", "en-US")
            .put("message", "API key not valid. Please pass a valid API key.");
        respond(exchange, 400, "application/json",
            status(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT", details));
      }
      case FORBIDDEN -> respond(exchange, 403, "application/json",
          status(403, "The caller does not have permission", "PERMISSION_DENIED", details));
      case BILLING -> {
        quotaFailure(details, "generate_content_free_tier_input_token_count",
            "GenerateContentInputTokensPerModelPerMinute-FreeTier", model, "0");
        help(details);
        details.addObject().put("@type", "type.googleapis.com/google.rpc.RetryInfo").put("retryDelay", "20s");
        respond(exchange, 429, "application/json", status(429, quotaMessage(
            "generate_content_free_tier_input_token_count", 0, model) + "\nPlease retry in 20.5s.",
            "RESOURCE_EXHAUSTED", details));
      }
      default -> throw new IllegalStateException("not a failure mode: " + failure);
    }
  }

  private static String quotaMessage(String metric, int limit, String model) {
    return "You exceeded your current quota, please check your plan and billing details. For more information on "
        + "this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, "
        + "head to: https://ai.dev/usage?tab=rate-limit. \n* Quota exceeded for metric: "
        + "generativelanguage.googleapis.com/" + metric + ", limit: " + limit + ", model: " + model;
  }

  private static void quotaFailure(ArrayNode details, String metric, String quotaId, String model, String value) {
    ObjectNode violation = details.addObject().put("@type", "type.googleapis.com/google.rpc.QuotaFailure")
        .putArray("violations").addObject();
    violation.put("quotaMetric", "generativelanguage.googleapis.com/" + metric).put("quotaId", quotaId);
    violation.putObject("quotaDimensions").put("location", "global").put("model", model);
    violation.put("quotaValue", value);
  }

  private static void help(ArrayNode details) {
    details.addObject().put("@type", "type.googleapis.com/google.rpc.Help").putArray("links").addObject()
        .put("description", "Learn more about Gemini API quotas")
        .put("url", "https://ai.google.dev/gemini-api/docs/rate-limits");
  }

  private static String status(int code, String message, String status, ArrayNode details) {
    ObjectNode error = JSON.createObjectNode().put("code", code).put("message", message).put("status", status);
    if (!details.isEmpty()) {
      error.set("details", details);
    }
    return JSON.createObjectNode().set("error", error).toString();
  }

}
