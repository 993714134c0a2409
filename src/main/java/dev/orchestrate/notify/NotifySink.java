package dev.orchestrate.notify;

import java.net.URI;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** One entry of the config's {@code notify:} list, validated ({@link NotifyConfigParser}). */
public sealed interface NotifySink permits NotifySink.Webhook, NotifySink.Command {
  /** How long one request or one command may take when the config says nothing. */
  Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** The name {@code stats} shows: {@code name:} or {@code <type>-<position from 1>}. */
  String name();

  /** {@code webhook} or {@code command}. */
  String type();

  /** The events this sink receives; never empty. */
  Set<EventKind> events();

  Duration timeout();

  default boolean wants(EventKind kind) {
    return events().contains(kind);
  }

  private static Set<EventKind> events(Set<EventKind> events) {
    if (events.isEmpty()) {
      throw new IllegalArgumentException("a sink needs at least one event");
    }
    return Collections.unmodifiableSet(EnumSet.copyOf(events));
  }

  /**
   * An HTTP POST of the document.
   *
   * @param secretEnv the environment variable holding the HMAC secret, if the document is signed
   * @param headers   extra request headers (an {@code Authorization}, ...), in config order
   */
  record Webhook(String name, URI url, Optional<String> secretEnv, Map<String, String> headers,
      Set<EventKind> events, Duration connectTimeout, Duration timeout) implements NotifySink {
    public Webhook {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(secretEnv, "secretEnv");
      headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
      events = NotifySink.events(events);
      Objects.requireNonNull(connectTimeout, "connectTimeout");
      Objects.requireNonNull(timeout, "timeout");
    }

    @Override
    public String type() {
      return "webhook";
    }
  }

  /**
   * A command given the document on stdin.
   *
   * @param argv the program and its arguments; a command written as one string is
   *             {@code ["/bin/sh", "-c", text]}
   */
  record Command(String name, List<String> argv, Set<EventKind> events, Duration timeout) implements NotifySink {
    public static final String SHELL = "/bin/sh";

    public Command {
      Objects.requireNonNull(name, "name");
      argv = List.copyOf(argv);
      if (argv.isEmpty()) {
        throw new IllegalArgumentException("a command needs a program");
      }
      events = NotifySink.events(events);
      Objects.requireNonNull(timeout, "timeout");
    }

    @Override
    public String type() {
      return "command";
    }
  }
}
