package dev.orchestrate.context;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Function;

/**
 * Summarizes through any OpenAI-compatible chat-completions endpoint ({@code POST
 * <base_url>/chat/completions}) with temperature 0 and at most 4096 tokens. The API key is read
 * from a named environment variable at each call and never appears in logs or messages, not even
 * where the endpoint's answer quotes it back.
 */
final class OpenAiSummarizer implements Summarizer {
  public static final int MAX_TOKENS = 4096;
  private static final int BODY_EXCERPT_CHARS = 200;
  /** What stands for the API key in a message: the mask every other secret gets (Secrets.MASK). */
  static final String MASK = "***";

  private final URI endpoint;
  private final String model;
  private final String apiKeyEnv;
  private final Duration timeout;
  private final Function<String, String> env;
  private final HttpClient client;
  private final ObjectMapper json = new ObjectMapper();

  /**
   * @param apiKeyEnv the variable holding the API key; null sends no Authorization header
   * @param env       how to read environment variables ({@code System::getenv} in production)
   */
  OpenAiSummarizer(String baseUrl, String model, String apiKeyEnv, Duration timeout,
      Function<String, String> env) {
    String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.endpoint = URI.create(base + "/chat/completions");
    this.model = model;
    this.apiKeyEnv = apiKeyEnv;
    this.timeout = timeout;
    this.env = env;
    this.client = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  @Override
  public String name() {
    return "openai:" + model;
  }

  @Override
  public String summarize(String prompt) throws SummarizationException {
    HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(requestBody(prompt), StandardCharsets.UTF_8));
    String key = null;
    if (apiKeyEnv != null) {
      String value = env.apply(apiKeyEnv);
      if (value == null || value.isBlank()) {
        throw new SummarizationException("openai summarizer: environment variable " + apiKeyEnv
            + " (context.summarizer.api_key_env) is not set");
      }
      key = value.strip();
      request.header("Authorization", "Bearer " + key);
    }
    HttpResponse<String> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (HttpTimeoutException e) {
      throw new SummarizationException("openai summarizer: no answer from " + endpoint + " within "
          + timeout.toMillis() + " ms", e);
    } catch (ConnectException e) {
      throw new SummarizationException("openai summarizer: cannot connect to " + endpoint, e);
    } catch (IOException e) {
      throw new SummarizationException("openai summarizer: request to " + endpoint + " failed: "
          + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + hide(e.getMessage(), key)), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SummarizationException("openai summarizer: interrupted", e);
    }
    // An endpoint may quote the request back (a 401 naming the key it refused): the answer has the
    // key masked before anything reads it, so a message quoting it (cut to an excerpt) or the
    // summary made of it holds no part of the key.
    String body = hide(response.body(), key);
    if (response.statusCode() / 100 != 2) {
      throw new SummarizationException("openai summarizer: HTTP " + response.statusCode() + " from "
          + endpoint + excerpt(body));
    }
    return content(body);
  }

  String requestBody(String prompt) {
    ObjectNode body = json.createObjectNode();
    body.put("model", model);
    body.put("temperature", 0);
    body.put("max_tokens", MAX_TOKENS);
    ObjectNode message = body.putArray("messages").addObject();
    message.put("role", "user");
    message.put("content", prompt);
    return body.toString();
  }

  private String content(String body) throws SummarizationException {
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (IOException e) {
      throw new SummarizationException("openai summarizer: the answer is not JSON" + excerpt(body), e);
    }
    JsonNode content = root == null ? null : root.path("choices").path(0).path("message").path("content");
    if (content == null || !content.isTextual()) {
      throw new SummarizationException("openai summarizer: the answer has no choices[0].message.content"
          + excerpt(body));
    }
    if (content.asText().isBlank()) {
      throw new SummarizationException("openai summarizer: the answer's content is empty");
    }
    return content.asText().strip();
  }

  /** {@code text} with the key replaced by {@value #MASK}; the key is null when none is sent. */
  private static String hide(String text, String key) {
    return key == null || key.isEmpty() || text == null ? text : text.replace(key, MASK);
  }

  private static String excerpt(String body) {
    if (body == null || body.isBlank()) {
      return "";
    }
    String line = body.strip().replaceAll("\\s+", " ");
    return ": " + (line.length() > BODY_EXCERPT_CHARS ? line.substring(0, BODY_EXCERPT_CHARS) + "…" : line);
  }
}
