package dev.orchestrate.notify;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.yaml.DidYouMean;
import dev.orchestrate.yaml.Names;
import dev.orchestrate.yaml.Problems;
import dev.orchestrate.yaml.Values;
import dev.orchestrate.yaml.YamlNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads the config's {@code notify:} value (docs/notifications.md) into validated
 * {@link NotifySink}s, reporting every problem at its line and column in the config loader's
 * words. The config loader hands it the node and its {@link Problems}, and its duration reader,
 * so that {@code timeout: 30s} reads as everywhere else in the file.
 */
public final class NotifyConfigParser {
  public static final String KEY = "notify";
  public static final List<String> WEBHOOK_KEYS = List.of("type", "name", "events", "url", "secret_env", "headers",
      "timeout", "connect_timeout");
  public static final List<String> COMMAND_KEYS = List.of("type", "name", "events", "run", "timeout");
  /** The longest timeout of one request or one command: a sink is not a job. */
  public static final Duration MAX_TIMEOUT = Duration.ofMinutes(5);
  private static final Map<String, String> TYPES = types();
  private static final String EXAMPLE = "{type: webhook, url: \"https://hooks.example.com/orchestrate\", "
      + "events: [item_blocked]}";
  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`|~-]+");
  /** Headers the JDK's client sets itself, and the ones this sink owns. */
  private static final Set<String> RESERVED_HEADERS = Set.of("connection", "content-length", "expect", "host",
      "upgrade", "content-type", WebhookSink.SIGNATURE_HEADER.toLowerCase(Locale.ROOT),
      WebhookSink.EVENT_HEADER.toLowerCase(Locale.ROOT), WebhookSink.DELIVERY_HEADER.toLowerCase(Locale.ROOT));

  private final Problems problems;
  private final Values values;
  private final Function<String, Duration> durations;

  /**
   * @param durations parses a duration as config files write it ({@code 30s}), throwing
   *     IllegalArgumentException with the reason
   */
  public NotifyConfigParser(Problems problems, Function<String, Duration> durations) {
    this.problems = problems;
    this.values = new Values(problems);
    this.durations = durations;
  }

  /**
   * The sinks of {@code node} (the value of {@code notify:}); nothing written reads as no sink.
   * Problems go to the {@link Problems} given; then the result is empty.
   */
  public Optional<List<NotifySink>> sinks(YamlNode node) {
    if (node instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      return Optional.of(List.of());
    }
    if (!(node instanceof YamlNode.Sequence list)) {
      problems.expected(node, KEY, "a list of sinks, each like " + EXAMPLE);
      return Optional.empty();
    }
    List<NotifySink> sinks = new ArrayList<>();
    Map<String, Integer> names = new LinkedHashMap<>();
    boolean ok = true;
    for (int i = 0; i < list.items().size(); i++) {
      String path = KEY + "[" + i + "]";
      YamlNode item = list.items().get(i);
      if (!(item instanceof YamlNode.Mapping map)) {
        problems.expected(item, path, "a map like " + EXAMPLE);
        ok = false;
        continue;
      }
      Optional<NotifySink> sink = sink(map, path, i);
      if (sink.isPresent()) {
        Integer first = names.putIfAbsent(sink.get().name(), map.line());
        if (first != null) {
          problems.at(map.get("name").orElse(map), "duplicate sink name " + Quote.value(sink.get().name()) + " in "
              + path + " (first at line " + first + "): give each sink its own name:");
          ok = false;
        }
      }
      ok &= sink.isPresent();
      sink.ifPresent(sinks::add);
    }
    return ok ? Optional.of(sinks) : Optional.empty();
  }

  private Optional<NotifySink> sink(YamlNode.Mapping map, String path, int index) {
    Optional<String> type = Optional.empty();
    if (map.get("type").isEmpty()) {
      problems.at(map, path + " has no type: give type: webhook or type: command");
    } else {
      type = values.choice(map.get("type").get(), "type in " + path, TYPES);
    }
    List<String> allowed = type.map(t -> t.equals("webhook") ? WEBHOOK_KEYS : COMMAND_KEYS)
        .orElseGet(() -> union(WEBHOOK_KEYS, COMMAND_KEYS));
    problems.unknownKeys(map, allowed, "key", path + (type.map(t -> " (a " + t + ")").orElse("")));
    Optional<String> name = name(map, path, type.orElse("sink"), index);
    Optional<Set<EventKind>> events = events(map, path);
    Optional<Duration> timeout = duration(map, "timeout", path, NotifySink.DEFAULT_TIMEOUT);
    if (type.isEmpty()) {
      return Optional.empty();
    }
    if (type.get().equals("webhook")) {
      Optional<URI> url = url(map, path);
      Optional<Optional<String>> secretEnv = secretEnv(map, path);
      Optional<Map<String, String>> headers = headers(map, path);
      Optional<Duration> connect = duration(map, "connect_timeout", path, NotifySink.DEFAULT_CONNECT_TIMEOUT);
      if (name.isEmpty() || events.isEmpty() || timeout.isEmpty() || url.isEmpty() || secretEnv.isEmpty()
          || headers.isEmpty() || connect.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(new NotifySink.Webhook(name.get(), url.get(), secretEnv.get(), headers.get(),
          events.get(), connect.get(), timeout.get()));
    }
    Optional<List<String>> argv = run(map, path);
    if (name.isEmpty() || events.isEmpty() || timeout.isEmpty() || argv.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new NotifySink.Command(name.get(), argv.get(), events.get(), timeout.get()));
  }

  private Optional<String> name(YamlNode.Mapping map, String path, String type, int index) {
    Optional<YamlNode> node = map.get("name");
    if (node.isEmpty()) {
      return Optional.of(type + "-" + (index + 1));
    }
    Optional<String> name = values.nonBlank(node.get(), "name in " + path, "a name like ops-hook");
    if (name.isPresent() && !Names.isValidName(name.get())) {
      problems.at(node.get(), "bad sink name " + Quote.value(name.get()) + " in " + path + ": " + Names.NAME_RULE);
      return Optional.empty();
    }
    return name;
  }

  private Optional<Set<EventKind>> events(YamlNode.Mapping map, String path) {
    Optional<YamlNode> node = map.get("events");
    if (node.isEmpty()) {
      problems.at(map, path + " has no events: list the ones it should receive, e.g. events: [item_blocked, "
          + "run_halted] (known: " + String.join(", ", EventKind.NAMES) + ")");
      return Optional.empty();
    }
    Optional<List<String>> names = values.strings(node.get(), "events", path, "event name");
    if (names.isEmpty()) {
      return Optional.empty();
    }
    if (names.get().isEmpty()) {
      problems.at(node.get(), "events in " + path + " is empty: list the events this sink should receive "
          + "(known: " + String.join(", ", EventKind.NAMES) + ")");
      return Optional.empty();
    }
    Set<EventKind> events = EnumSet.noneOf(EventKind.class);
    boolean ok = true;
    for (int i = 0; i < names.get().size(); i++) {
      String name = names.get().get(i);
      Optional<EventKind> kind = EventKind.of(name);
      if (kind.isPresent()) {
        events.add(kind.get());
        continue;
      }
      String hint = DidYouMean.closest(name, EventKind.NAMES).map(c -> "did you mean '" + c + "'?")
          .orElseGet(() -> "expected one of: " + String.join(", ", EventKind.NAMES));
      problems.at(((YamlNode.Sequence) node.get()).items().get(i), "unknown event " + Quote.value(name)
          + " in events of " + path + "; " + hint);
      ok = false;
    }
    return ok ? Optional.of(events) : Optional.empty();
  }

  private Optional<Duration> duration(YamlNode.Mapping map, String key, String path, Duration fallback) {
    Optional<YamlNode> node = map.get(key);
    if (node.isEmpty()) {
      return Optional.of(fallback);
    }
    String subject = key + " in " + path;
    return values.text(node.get(), subject, "a duration like 10s").flatMap(text -> {
      Duration duration;
      try {
        duration = durations.apply(text);
      } catch (IllegalArgumentException e) {
        problems.at(node.get(), subject + ": " + e.getMessage());
        return Optional.empty();
      }
      if (duration.compareTo(MAX_TIMEOUT) > 0) {
        problems.at(node.get(), subject + " must be at most 5m, got " + node.get().describe());
        return Optional.empty();
      }
      return Optional.of(duration);
    });
  }

  private Optional<URI> url(YamlNode.Mapping map, String path) {
    Optional<YamlNode> node = map.get("url");
    if (node.isEmpty()) {
      problems.at(map, path + " has no url: give the endpoint, e.g. url: \"https://hooks.example.com/orchestrate\"");
      return Optional.empty();
    }
    String expectation = "an http or https URL like https://hooks.example.com/orchestrate";
    Optional<String> text = values.nonBlank(node.get(), "url in " + path, expectation);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(text.get().strip());
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if ((scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null) {
        return Optional.of(uri);
      }
    } catch (URISyntaxException e) {
      // reported below
    }
    problems.expected(node.get(), "url in " + path, expectation);
    return Optional.empty();
  }

  /** Present and empty: no signature; empty: a problem was reported. */
  private Optional<Optional<String>> secretEnv(YamlNode.Mapping map, String path) {
    Optional<YamlNode> node = map.get("secret_env");
    if (node.isEmpty()) {
      return Optional.of(Optional.empty());
    }
    Optional<String> name = values.nonBlank(node.get(), "secret_env in " + path,
        "the name of the environment variable holding the signing secret, like ORCHESTRATE_HOOK_SECRET");
    if (name.isPresent() && !ENV_NAME.matcher(name.get()).matches()) {
      problems.at(node.get(), "bad environment variable name " + Quote.value(name.get()) + " in secret_env of "
          + path + ": use letters, digits and '_', not starting with a digit (the variable's name, not the secret)");
      return Optional.empty();
    }
    return name.map(Optional::of);
  }

  private Optional<Map<String, String>> headers(YamlNode.Mapping map, String path) {
    Optional<YamlNode> node = map.get("headers");
    if (node.isEmpty()) {
      return Optional.of(Map.of());
    }
    Optional<YamlNode.Mapping> headers = values.mapping(node.get(), "headers in " + path,
        "a map of header names to values, like {Authorization: \"Bearer ...\"}");
    if (headers.isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> out = new LinkedHashMap<>();
    boolean ok = true;
    for (YamlNode.Entry entry : headers.get().entries()) {
      String name = entry.key().name();
      if (!HEADER_NAME.matcher(name).matches()) {
        problems.at(entry.key(), "bad header name " + Quote.value(name) + " in headers of " + path
            + ": use letters, digits and '-'");
        ok = false;
        continue;
      }
      if (RESERVED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
        problems.at(entry.key(), "header " + Quote.value(name) + " in headers of " + path
            + " is set by orchestrate itself: remove it");
        ok = false;
        continue;
      }
      Optional<String> value = values.text(entry.value(), "headers." + name + " in " + path, "a string");
      if (value.isPresent() && value.get().chars().anyMatch(c -> c == '\r' || c == '\n')) {
        problems.at(entry.value(), "headers." + name + " in " + path + " must be one line");
        ok = false;
        continue;
      }
      ok &= value.isPresent();
      value.ifPresent(v -> out.put(name, v));
    }
    return ok ? Optional.of(out) : Optional.empty();
  }

  private Optional<List<String>> run(YamlNode.Mapping map, String path) {
    Optional<YamlNode> node = map.get("run");
    if (node.isEmpty()) {
      problems.at(map, path + " has no run: give the command, e.g. run: \"./notify.sh\" or run: [\"python3\", "
          + "\"hook.py\"]");
      return Optional.empty();
    }
    if (node.get() instanceof YamlNode.Sequence) {
      Optional<List<String>> argv = values.strings(node.get(), "run", path, "argument");
      if (argv.isPresent() && argv.get().isEmpty()) {
        problems.at(node.get(), "run in " + path + " is empty: give the program and its arguments");
        return Optional.empty();
      }
      return argv;
    }
    return values.nonBlank(node.get(), "run in " + path, "a command like \"./notify.sh\"")
        .map(text -> List.of(NotifySink.Command.SHELL, "-c", text));
  }

  private static Map<String, String> types() {
    Map<String, String> types = new LinkedHashMap<>();
    types.put("webhook", "webhook");
    types.put("command", "command");
    return types;
  }

  private static List<String> union(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    b.stream().filter(k -> !out.contains(k)).forEach(out::add);
    return out;
  }
}
