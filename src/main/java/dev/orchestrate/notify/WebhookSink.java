package dev.orchestrate.notify;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * POSTs the document to a URL: {@code Content-Type: application/json}, the event kind and the
 * delivery id in headers, and, when the config names a {@code secret_env}, a signature header
 * {@code X-Orchestrate-Signature: sha256=<hex HMAC-SHA256 of the body>}. A 2xx answer is a
 * delivery; a 5xx, 408 or 429 answer or a network error is retried after {@link #BACKOFF} (1 s,
 * then 2 s), {@link #ATTEMPTS} attempts in all; any other answer is final. Redirects are not
 * followed (a signed document goes where it was configured to, or nowhere).
 */
final class WebhookSink implements Sink {
  public static final int ATTEMPTS = 3;
  public static final List<Duration> BACKOFF = List.of(Duration.ofSeconds(1), Duration.ofSeconds(2));
  public static final String SIGNATURE_HEADER = "X-Orchestrate-Signature";
  public static final String EVENT_HEADER = "X-Orchestrate-Event";
  public static final String DELIVERY_HEADER = "X-Orchestrate-Delivery";
  private static final String HMAC = "HmacSHA256";

  private final NotifySink.Webhook config;
  private final Optional<SecretKeySpec> key;
  private final HttpClient client;
  private final Sleeper sleeper;

  /**
   * @param env the environment the secret is read from (once, here)
   * @throws IllegalArgumentException when {@code secret_env} names a variable that is unset or
   *     empty: a run would otherwise send unsigned documents its receiver rejects
   */
  public WebhookSink(NotifySink.Webhook config, Map<String, String> env, Sleeper sleeper) {
    this.config = config;
    this.sleeper = sleeper;
    this.key = config.secretEnv().map(name -> {
      String secret = env.get(name);
      if (secret == null || secret.isEmpty()) {
        throw new IllegalArgumentException("notify " + config.name() + ": secret_env " + name
            + " is not set: export it, or remove secret_env to send unsigned documents");
      }
      return new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), HMAC);
    });
    this.client = HttpClient.newBuilder()
        .connectTimeout(config.connectTimeout())
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  @Override
  public NotifySink config() {
    return config;
  }

  @Override
  public void deliver(NotificationEvent event, String deliveryId, String json)
      throws DeliveryException, InterruptedException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    HttpRequest request = request(event, deliveryId, body);
    String lastError = "";
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      if (attempt > 1) {
        sleeper.sleep(BACKOFF.get(Math.min(attempt - 2, BACKOFF.size() - 1)));
      }
      try {
        HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
          return;
        }
        lastError = "HTTP " + status;
        if (!retryable(status)) {
          break;
        }
      } catch (IOException e) {
        lastError = describe(e);
      }
    }
    throw new DeliveryException(lastError + " (" + ATTEMPTS + " attempts)");
  }

  private HttpRequest request(NotificationEvent event, String deliveryId, byte[] body) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(config.url())
        .timeout(config.timeout())
        .header("Content-Type", "application/json")
        .header("User-Agent", "orchestrate")
        .header(EVENT_HEADER, event.kind().wireName())
        .header(DELIVERY_HEADER, deliveryId);
    config.headers().forEach(builder::header);
    key.ifPresent(k -> builder.header(SIGNATURE_HEADER, "sha256=" + sign(k, body)));
    return builder.POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
  }

  /** The hex HMAC-SHA256 of {@code body} under {@code key}: what a receiver recomputes. */
  static String sign(SecretKeySpec key, byte[] body) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(key);
      return HexFormat.of().formatHex(mac.doFinal(body));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HMAC-SHA256 is unavailable", e);
    }
  }

  private static boolean retryable(int status) {
    return status >= 500 || status == 408 || status == 429;
  }

  /** A short cause without the URL (a webhook URL can itself be a secret). */
  private static String describe(IOException e) {
    if (e instanceof HttpConnectTimeoutException) {
      return "connect timed out";
    }
    if (e instanceof HttpTimeoutException) {
      return "no answer within the timeout";
    }
    if (e instanceof ConnectException) {
      return "cannot connect";
    }
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
  }
}
