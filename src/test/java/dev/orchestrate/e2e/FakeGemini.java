package dev.orchestrate.e2e;

import com.fasterxml.jackson.databind.JsonNode;
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
 * {@link Mode#WRITE_RESULT} makes the model an agent that writes orchestrate's result file with one
 * of the CLI's tools (a {@code functionCall}), for the CLI's ACP mode.
 */
final class FakeGemini extends FakeModelServer {

  enum Mode {
    /** a short text */
    ANSWER_ONLY,
    /**
     * A conversation request that offers tools and has no {@code functionResponse} yet is answered
     * with one {@code functionCall} that writes the result file: {@code run_shell_command} with a
     * printf to {@code $ORCHESTRATE_RESULT_FILE} (the shell inherits orchestrate's variables), or
     * {@code write_file} of the path the prompt names when {@link #tool} chooses it. Once the
     * function's response is in, a final text ({@link #DONE}); side requests as in ANSWER_ONLY.
     */
    WRITE_RESULT,
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
  /** The final text of {@link Mode#WRITE_RESULT}, once the tool has run. */
  static final String DONE = "Done: the result file is written.";
  /** What the printf of {@link Mode#WRITE_RESULT} writes as the summary, with the phase and the item. */
  static final String SHELL_SUMMARY = "fake model did %s of %s";
  /** The summary a {@code write_file} of {@link Mode#WRITE_RESULT} writes. */
  static final String WRITE_FILE_SUMMARY = "fake model wrote the result file with write_file";
  private static final ObjectMapper JSON = new ObjectMapper();
  volatile Mode mode = Mode.ANSWER_ONLY;
  /**
   * With {@link Mode#WRITE_RESULT}: the tool the model calls, chosen from the text of the
   * conversation's first user message (orchestrate's prompt): {@code run_shell_command} or
   * {@code write_file}.
   */
  volatile java.util.function.Function<String, String> tool = prompt -> "run_shell_command";

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
      JsonNode request = JSON.readTree(body);
      requests.add(request);
      Mode failure = mode;
      if (failure != Mode.ANSWER_ONLY && failure != Mode.WRITE_RESULT && failsNow()) {
        fail(exchange, failure, path.substring(path.lastIndexOf('/') + 1, path.lastIndexOf(':')));
        return;
      }
      if (stream && failure == Mode.WRITE_RESULT) {
        String answer = offersTools(request) && !answered(request) ? response(call(request)) : answer(DONE);
        respond(exchange, 200, "text/event-stream", "data: " + answer + "\r\n\r\n");
      } else if (stream) {
        respond(exchange, 200, "text/event-stream", "data: " + answer(ANSWER) + "\r\n\r\n");
      } else {
        respond(exchange, 200, "application/json",
            answer("{\"complexity_reasoning\": \"A short answer.\", \"complexity_score\": 5}"));
      }
    }
  }

  /** Requests of the conversation that offered the CLI's tools: the agent's own model turns. */
  long agentTurns() {
    return requests.stream().filter(FakeGemini::offersTools).count();
  }

  /**
   * Points the Gemini CLI at this server, offline: HOME (with a settings.json that selects the API
   * key and turns off update checks and usage statistics), {@code GOOGLE_GEMINI_BASE_URL}, a dummy
   * {@code GEMINI_API_KEY}, and none of the host's Google credentials or project settings.
   */
  void geminiEnvironment(java.util.Map<String, String> env, java.nio.file.Path home) throws IOException {
    java.nio.file.Path settings = home.resolve(".gemini/settings.json");
    java.nio.file.Files.createDirectories(settings.getParent());
    java.nio.file.Files.writeString(settings, """
        {
          "security": {"auth": {"selectedType": "gemini-api-key"}},
          "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
          "privacy": {"usageStatisticsEnabled": false}
        }
        """);
    for (String name : java.util.List.of("GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
        "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA", "GOOGLE_APPLICATION_CREDENTIALS", "GEMINI_MODEL",
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_SANDBOX")) {
      env.remove(name);
    }
    env.put("HOME", home.toString());
    env.put("GOOGLE_GEMINI_BASE_URL", baseUrl());
    env.put("GEMINI_API_KEY", "fake-gemini-key");
    env.put("PATH", AgentClis.nodeDir() + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
  }

  private static boolean offersTools(JsonNode request) {
    for (JsonNode tool : request.path("tools")) {
      if (tool.path("functionDeclarations").size() > 0) {
        return true;
      }
    }
    return false;
  }

  /** Whether the conversation already holds a function's response (the tool has run, or was refused). */
  private static boolean answered(JsonNode request) {
    for (JsonNode content : request.path("contents")) {
      for (JsonNode part : content.path("parts")) {
        if (part.has("functionResponse")) {
          return true;
        }
      }
    }
    return false;
  }

  /** The functionCall part that writes the result file, with the tool {@link #tool} chooses. */
  private ObjectNode call(JsonNode request) {
    StringBuilder prompt = new StringBuilder();
    for (JsonNode content : request.path("contents")) {
      if ("user".equals(content.path("role").asText())) {
        for (JsonNode part : content.path("parts")) {
          prompt.append(part.path("text").asText("")).append('\n');
        }
      }
    }
    String name = tool.apply(prompt.toString());
    ObjectNode part = JSON.createObjectNode();
    ObjectNode call = part.putObject("functionCall").put("name", name);
    ObjectNode args = call.putObject("args");
    if (name.equals("write_file")) {
      // orchestrate's prompt names the file: "... $ORCHESTRATE_RESULT_FILE (/path/result.json):"
      java.util.regex.Matcher file = java.util.regex.Pattern.compile("\\$ORCHESTRATE_RESULT_FILE \\((/[^)\\n]+)\\):")
          .matcher(prompt);
      if (!file.find()) {
        throw new IllegalStateException("the prompt names no result file: " + prompt);
      }
      args.put("file_path", file.group(1)).put("content", JSON.createObjectNode().put("result", "phase_complete")
          .put("summary", WRITE_FILE_SUMMARY).toString());
    } else {
      args.put("command", "printf '%s' '{\"result\":\"phase_complete\",\"summary\":\""
          + SHELL_SUMMARY.formatted("'\"$ORCHESTRATE_PHASE\"'", "'\"$ORCHESTRATE_ITEM_ID\"'")
          + "\"}' > \"$ORCHESTRATE_RESULT_FILE\"").put("description", "Write the result file.");
    }
    return part;
  }

  private static String answer(String text) {
    return response(JSON.createObjectNode().put("text", text));
  }

  /** A model response whose one part is {@code part} (a text, or a functionCall). */
  private static String response(ObjectNode part) {
    ObjectNode candidate = JSON.createObjectNode();
    ObjectNode content = candidate.putObject("content");
    content.putArray("parts").add(part);
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
