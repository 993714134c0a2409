package dev.orchestrate.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Regenerates the fixtures under {@code src/test/resources/agent-outputs/}: runs each real agent CLI
 * (pinned in {@link AgentClis}) headless with its preset's argv against a fake model server on
 * 127.0.0.1 that answers as the provider does when it succeeds, limits usage, rate-limits,
 * overloads, refuses the key or the bill, and keeps what the CLI printed, its exit code, wall time
 * and the requests it made. HOME is a fresh directory per case; a CLI still running after
 * {@link Case#cap()} is killed and recorded as such.
 *
 * <p>Not a test (no build runs it: it is neither {@code *Test} nor {@code *IT}): it takes about 6
 * minutes with {@code --parallel=6} (the longest cases run 5) and the npm registry (to install the
 * CLIs). Run it from the project directory:
 *
 * <pre>
 * ./mvnw -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/test.classpath
 * java -cp target/test-classes:target/classes:$(cat target/test.classpath) \
 *     dev.orchestrate.e2e.RecordAgentOutputs [--parallel=N] [cli | cli/case]...
 * </pre>
 *
 * With no selection every case is recorded, e.g. {@code claude-code/overloaded gemini-cli} records
 * one case of Claude Code and every case of the Gemini CLI.
 */
public final class RecordAgentOutputs {

  /**
   * How long a CLI may run before it is killed, unless its case says otherwise: the cases where
   * Claude Code's ten retries end a little after 3 minutes get 5, to record how it gives up.
   */
  static final Duration CAP = Duration.ofMinutes(3);
  /** A far reset: 3 days 6 hours ahead, to see how a CLI writes a date. */
  static final long DAYS_AHEAD = 3 * 86400 + 6 * 3600;
  static final String PROMPT = "Reply with a one-line greeting.\n";
  /** The first run's prompt in the resume cases, and what the resume asks after it. */
  static final String FIRST_PROMPT = "Remember the word PELICAN, then reply with a one-line greeting.\n";
  static final String RESUME_PROMPT = "Which word did I ask you to remember?\n";
  static final Path FIXTURES = Launcher.HOME.resolve("src/test/resources/agent-outputs");
  static final Path SCRATCH = Launcher.HOME.resolve("target/agent-recordings");
  /** Beyond this a stream keeps its first {@link #HEAD_BYTES} and last {@link #TAIL_BYTES}. */
  static final int MAX_BYTES = 48 * 1024;
  static final int HEAD_BYTES = 24 * 1024;
  static final int TAIL_BYTES = 16 * 1024;
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private RecordAgentOutputs() {
  }

  /** A fake provider as a case drives it. */
  interface Server extends AutoCloseable {
    String baseUrl();

    List<ServedRequest> served();

    /** The bodies of the model requests, in the order they came. */
    List<JsonNode> requests();

    String firstFailure();

    @Override
    void close();
  }

  /** What the CLI is started with; {@code shownEnv} has the secrets replaced by placeholders. */
  record Invocation(List<String> argv, Map<String, String> env, Map<String, String> shownEnv,
      Map<String, String> files) {
  }

  enum Cli {
    CLAUDE("claude-code", AgentClis.CLAUDE_CODE, "claude"), CODEX("codex", AgentClis.CODEX, "codex"), GEMINI(
        "gemini-cli", AgentClis.GEMINI_CLI, "gemini"), OPENCODE("opencode", AgentClis.OPENCODE, "opencode");

    final String key;
    final String pkg;
    final String bin;

    Cli(String key, String pkg, String bin) {
      this.key = key;
      this.pkg = pkg;
      this.bin = bin;
    }

    String version() {
      return pkg.substring(pkg.lastIndexOf('@') + 1);
    }

    Path fixtures() {
      return FIXTURES.resolve(key + "-" + version());
    }

    /** A well-formed session id that no run created: what the unknown-session case resumes. */
    String unknownId() {
      return this == OPENCODE ? "ses_0f0f0f0f0ffe0NeverCreated0000" : "5f0c1e8a-3b7d-4c2e-9a61-7d2b8e4f1c90";
    }

    /** The text the fake model answers this CLI's turn with. */
    String answer() {
      return this == GEMINI ? FakeGemini.ANSWER : "Done: the result file is written.";
    }

    /** The --help outputs that show its resume flags: file name to argv after the program. */
    Map<String, List<String>> helps() {
      return switch (this) {
        case CLAUDE -> Map.of("help", List.of("--help"));
        case CODEX -> Map.of("help.exec", List.of("exec", "--help"), "help.exec-resume",
            List.of("exec", "resume", "--help"));
        case GEMINI -> Map.of("help", List.of("--help"));
        case OPENCODE -> Map.of("help.run", List.of("run", "--help"));
      };
    }
  }

  /**
   * One recording: {@code server} starts the fake in its mode; {@code oauth} gives Claude Code a
   * subscription token instead of an API key.
   */
  record Case(Cli cli, String name, String description, ServerStart server, boolean oauth, Duration cap,
      Resume resume, List<String> args, Map<String, String> env) {
    Case(Cli cli, String name, String description, ServerStart server, boolean oauth) {
      this(cli, name, description, server, oauth, CAP, Resume.NONE, List.of(), Map.of());
    }

    /** The same case, killed after {@code seconds} instead of {@link #CAP}. */
    Case cappedAt(long seconds) {
      return new Case(cli, name, description, server, oauth, Duration.ofSeconds(seconds), resume, args, env);
    }

    /** The same case, recorded as the resume of a session (see {@link Resume}). */
    Case resuming(Resume how) {
      return new Case(cli, name, description, server, oauth, cap, how, args, env);
    }

    /** The same case with {@code more} after the preset's argv (what a user puts in {@code agent.args}). */
    Case withArgs(String... more) {
      return new Case(cli, name, description, server, oauth, cap, resume, List.of(more), env);
    }

    /** The same case with one more variable in the CLI's environment. */
    Case withEnv(String name, String value) {
      Map<String, String> more = new LinkedHashMap<>(env);
      more.put(name, value);
      return new Case(cli, this.name, description, server, oauth, cap, resume, args, Map.copyOf(more));
    }
  }

  /**
   * How a case resumes a session with the CLI's resume argv ({@link #invocation}'s {@code resumeId}).
   * The recorded run is the resume; for the kinds with a first run, that run (the preset's argv,
   * {@link #FIRST_PROMPT}, same HOME, same fake) is summed up in the meta's {@code first_run}, and
   * the meta's {@code resumed_requests} shows what the resume sent the model.
   */
  enum Resume {
    /** not a resume: the preset's argv once */
    NONE,
    /** a successful first run, then its session resumed from the same cwd */
    SUCCESS,
    /** as {@link #SUCCESS}, but the resume runs in another directory (a sibling of the first cwd) */
    OTHER_CWD,
    /** no first run: a session id that was never created ({@link Cli#unknownId()}) */
    UNKNOWN,
    /** a successful first run, then a session id that was never created, beside that session */
    UNKNOWN_BESIDE,
    /** a first run that ends in an API error the CLI does not retry, then its session resumed */
    AFTER_ERROR,
    /** a first run cut by its own {@code --max-budget-usd}, then its session resumed with the same flags */
    AFTER_BUDGET
  }

  @FunctionalInterface
  interface ServerStart {
    Server start() throws IOException;
  }

  static List<Case> cases() {
    List<Case> all = new ArrayList<>();
    anthropicCases(all, Cli.CLAUDE);
    all.add(new Case(Cli.CLAUDE, "success-oauth", "a text answer, subscription token (CLAUDE_CODE_OAUTH_TOKEN)",
        anthropic(FakeAnthropic.Mode.ANSWER_ONLY, 0), true));
    all.add(new Case(Cli.CLAUDE, "usage-limit-oauth", "429 with the unified rejected headers, subscription token",
        anthropic(FakeAnthropic.Mode.USAGE_LIMIT, 0), true));
    all.add(new Case(Cli.CLAUDE, "usage-limit-oauth-weekly", "429 with the unified rejected headers for the seven-day "
        + "limit, its reset 3 days 6 hours ahead, subscription token", () -> {
          FakeAnthropic fake = new FakeAnthropic();
          fake.mode = FakeAnthropic.Mode.USAGE_LIMIT;
          fake.weeklyLimit = true;
          fake.resetsAt = System.currentTimeMillis() / 1000 + DAYS_AHEAD;
          return server(fake.baseUrl(), fake.served, fake.requests, fake.firstFailure::get, fake);
        }, true));
    all.add(new Case(Cli.CLAUDE, "unauthorized-oauth", "401 authentication_error, subscription token",
        anthropic(FakeAnthropic.Mode.UNAUTHORIZED, 0), true).cappedAt(300));
    all.add(new Case(Cli.CLAUDE, "cut-mid-stream-killed", "as cut-mid-stream, but killed after 60 s while it "
        + "retries: a stream that ends without a result event", anthropic(FakeAnthropic.Mode.CUT_MID_STREAM, 0), false)
        .cappedAt(60));
    spendCases(all);
    anthropicCases(all, Cli.OPENCODE);
    Cli c = Cli.CODEX;
    all.add(new Case(c, "success", "a text answer", responses(FakeResponses.Mode.ANSWER_ONLY, 0), false));
    all.add(new Case(c, "usage-limit", "429 usage_limit_reached with plan_type, resets_at, resets_in_seconds",
        responses(FakeResponses.Mode.USAGE_LIMIT, 0), false));
    all.add(new Case(c, "usage-limit-days", "429 usage_limit_reached, its reset 3 days 6 hours ahead", () -> {
      FakeResponses fake = new FakeResponses();
      fake.mode = FakeResponses.Mode.USAGE_LIMIT;
      fake.resetsAt = System.currentTimeMillis() / 1000 + DAYS_AHEAD;
      return server(fake.baseUrl(), fake.served, fake.requests, fake.firstFailure::get, fake);
    }, false));
    all.add(new Case(c, "rate-limit-then-ok", "429 rate_limit_exceeded for the first 2 requests, then an answer",
        responses(FakeResponses.Mode.RATE_LIMITED, 2), false));
    all.add(new Case(c, "rate-limit-persistent", "429 rate_limit_exceeded on every request",
        responses(FakeResponses.Mode.RATE_LIMITED, 0), false));
    all.add(new Case(c, "overloaded", "503 server_is_overloaded on every request",
        responses(FakeResponses.Mode.OVERLOADED, 0), false));
    all.add(new Case(c, "server-error", "500 server_error on every request",
        responses(FakeResponses.Mode.SERVER_ERROR, 0), false));
    all.add(new Case(c, "unauthorized", "401 invalid_api_key", responses(FakeResponses.Mode.UNAUTHORIZED, 0), false));
    all.add(new Case(c, "forbidden", "403 model_not_found (no access to the model)",
        responses(FakeResponses.Mode.FORBIDDEN, 0), false));
    all.add(new Case(c, "billing", "429 insufficient_quota", responses(FakeResponses.Mode.INSUFFICIENT_QUOTA, 0),
        false));
    c = Cli.GEMINI;
    all.add(new Case(c, "success", "a text answer", gemini(FakeGemini.Mode.ANSWER_ONLY, 0), false));
    all.add(new Case(c, "usage-limit", "429 RESOURCE_EXHAUSTED, QuotaFailure on a per-day quota, RetryInfo 39s",
        gemini(FakeGemini.Mode.USAGE_LIMIT, 0), false));
    all.add(new Case(c, "rate-limit-then-ok", "429 per-minute quota with RetryInfo 5s for the first 2 requests, then "
        + "an answer", gemini(FakeGemini.Mode.RATE_LIMITED, 2), false));
    all.add(new Case(c, "rate-limit-persistent", "429 per-minute quota with RetryInfo 5s on every request",
        gemini(FakeGemini.Mode.RATE_LIMITED, 0), false));
    all.add(new Case(c, "overloaded", "503 UNAVAILABLE on every request", gemini(FakeGemini.Mode.OVERLOADED, 0),
        false));
    all.add(new Case(c, "unauthorized", "400 INVALID_ARGUMENT API_KEY_INVALID (Google sends no 401 for a key)",
        gemini(FakeGemini.Mode.UNAUTHORIZED, 0), false));
    all.add(new Case(c, "forbidden", "403 PERMISSION_DENIED", gemini(FakeGemini.Mode.FORBIDDEN, 0), false));
    all.add(new Case(c, "billing", "429 RESOURCE_EXHAUSTED with limit: 0 (no free-tier quota without billing)",
        gemini(FakeGemini.Mode.BILLING, 0), false));
    resumeCases(all);
    return all;
  }

  /**
   * Resuming a session: after a success (same cwd, another cwd), a session id never created, and
   * after a first run that ended in an API error the CLI does not retry (the fake fails as many
   * model requests as that run makes, then answers).
   */
  private static void resumeCases(List<Case> all) {
    for (Cli cli : Cli.values()) {
      ServerStart answers = switch (cli) {
        case CLAUDE, OPENCODE -> anthropic(FakeAnthropic.Mode.ANSWER_ONLY, 0);
        case CODEX -> responses(FakeResponses.Mode.ANSWER_ONLY, 0);
        case GEMINI -> gemini(FakeGemini.Mode.ANSWER_ONLY, 0);
      };
      ServerStart failsFirst = switch (cli) {
        case CLAUDE -> anthropic(FakeAnthropic.Mode.CREDIT_BALANCE, 1);
        // the title request and the turn
        case OPENCODE -> anthropic(FakeAnthropic.Mode.CREDIT_BALANCE, 2);
        case CODEX -> responses(FakeResponses.Mode.INSUFFICIENT_QUOTA, 1);
        // the router's classifier and the turn
        case GEMINI -> gemini(FakeGemini.Mode.FORBIDDEN, 2);
      };
      String error = switch (cli) {
        case CLAUDE, OPENCODE -> "400 credit balance too low";
        case CODEX -> "429 insufficient_quota";
        case GEMINI -> "403 PERMISSION_DENIED";
      };
      all.add(new Case(cli, "resume-success", "a first run answered; its session resumed from the same cwd and "
          + "HOME, the prompt on stdin", answers, false).resuming(Resume.SUCCESS));
      Case otherCwd = new Case(cli, "resume-other-cwd", "a first run answered; its session resumed with the same "
          + "HOME from another directory (<WORK>-other)", answers, false).resuming(Resume.OTHER_CWD);
      // opencode runs such a resume in the session's directory and then waits forever
      all.add(cli == Cli.OPENCODE ? otherCwd.cappedAt(60) : otherCwd);
      all.add(new Case(cli, "resume-unknown-id", "resuming a well-formed session id that was never created, in "
          + "a HOME where no session was ever stored",
          answers, false).resuming(Resume.UNKNOWN));
      all.add(new Case(cli, "resume-unknown-id-beside-session", "a first run answered; then resuming a "
          + "well-formed session id that was never created, with that session in the same store", answers, false)
          .resuming(Resume.UNKNOWN_BESIDE));
      all.add(new Case(cli, "resume-after-error", "a first run that failed with " + error + " (not retried); "
          + "its session resumed once the fake answers", failsFirst, false).resuming(Resume.AFTER_ERROR));
    }
  }

  /**
   * Claude Code's spend as it ends otherwise than with an answer (issue 44): cut by its own
   * {@code --max-budget-usd} after two turns, killed while the provider hangs after a first turn (what
   * {@code agent.timeout} leaves), and a 529 it does not retry. Each model turn writes a sentence, then
   * calls Bash, as the real model does, so that the message's two content blocks come as two assistant
   * events with one id.
   */
  private static void spendCases(List<Case> all) {
    // 1200 fresh input tokens a turn cost $0.00581 at the fake model's list price: the first turn
    // stays under $0.01, the second passes it.
    all.add(new Case(Cli.CLAUDE, "budget-exhausted", "--max-budget-usd 0.01: a Bash call (a sentence and the call "
        + "in one message), then a text answer, each turn $0.00581; the second passes the budget",
        spend(FakeAnthropic.Mode.WRITE_RESULT, 1200), false).withArgs("--allowedTools", "Bash", "--max-budget-usd",
            "0.01"));
    all.add(new Case(Cli.CLAUDE, "budget-exhausted-first-turn", "--max-budget-usd 0.01: the first turn alone "
        + "(8000 fresh input tokens) costs more than the budget", spend(FakeAnthropic.Mode.WRITE_RESULT, 8000),
        false).withArgs("--allowedTools", "Bash", "--max-budget-usd", "0.01"));
    all.add(new Case(Cli.CLAUDE, "hang-after-turn-killed", "a Bash call (a sentence and the call in one message), "
        + "then the provider holds the next request open without a byte; killed after 30 s (what agent.timeout "
        + "leaves)", spend(FakeAnthropic.Mode.HANG_AFTER_TOOL, FakeAnthropic.INPUT_TOKENS), false)
        .withArgs("--allowedTools", "Bash").cappedAt(30));
    all.add(new Case(Cli.CLAUDE, "resume-after-budget-exhausted", "a first run cut by --max-budget-usd 0.01 "
        + "(a Bash call on every turn, $0.00581 each: cut after two), then its session resumed with the same flags: "
        + "is the budget the run's or the session's?",
        spend(FakeAnthropic.Mode.ENDLESS_TOOLS, FakeAnthropic.INPUT_TOKENS),
        false).withArgs("--allowedTools", "Bash", "--max-budget-usd", "0.01").resuming(Resume.AFTER_BUDGET));
    all.add(new Case(Cli.CLAUDE, "overloaded-no-retry", "529 overloaded_error with x-should-retry: false on every "
        + "request", () -> {
          FakeAnthropic fake = new FakeAnthropic();
          fake.mode = FakeAnthropic.Mode.OVERLOADED;
          fake.noRetry = true;
          return server(fake.baseUrl(), fake.served, fake.requests, fake.firstFailure::get, fake);
        }, false));
    all.add(new Case(Cli.CLAUDE, "overloaded-max-retries-0", "529 overloaded_error on every request, "
        + "CLAUDE_CODE_MAX_RETRIES=0", anthropic(FakeAnthropic.Mode.OVERLOADED, 0), false)
        .withEnv("CLAUDE_CODE_MAX_RETRIES", "0"));
  }

  /** A fake that answers with a Bash call ({@code echo}) after a sentence, each turn of {@code input} tokens. */
  static ServerStart spend(FakeAnthropic.Mode mode, long input) {
    return () -> {
      FakeAnthropic fake = new FakeAnthropic();
      fake.mode = mode;
      fake.inputTokens = input;
      fake.preamble = "I'll check the working directory first.";
      fake.commands = request -> "echo working";
      fake.hangMillis = 60_000;
      return server(fake.baseUrl(), fake.served, fake.requests, fake.firstFailure::get, fake);
    };
  }

  /** The Anthropic cases, for Claude Code and for opencode through its anthropic provider. */
  private static void anthropicCases(List<Case> all, Cli cli) {
    // Claude Code gives up on these after its 10th retry, at about 200 s; opencode waits out a
    // retry-after of 240 s.
    long longer = 300;
    all.add(new Case(cli, "success", "a text answer", anthropic(FakeAnthropic.Mode.ANSWER_ONLY, 0), false));
    all.add(new Case(cli, "usage-limit-api-key", "429 rate_limit_error with anthropic-ratelimit-unified-status: "
        + "rejected, -reset and retry-after, API key", anthropic(FakeAnthropic.Mode.USAGE_LIMIT, 0), false)
        .cappedAt(longer));
    all.add(new Case(cli, "rate-limit-then-ok", "429 rate_limit_error (retry-after: 5, no unified headers) for the "
        + "first 2 requests, then an answer", anthropic(FakeAnthropic.Mode.RATE_LIMITED, 2), false));
    all.add(new Case(cli, "rate-limit-persistent", "429 rate_limit_error (retry-after: 5) on every request",
        anthropic(FakeAnthropic.Mode.RATE_LIMITED, 0), false).cappedAt(longer));
    all.add(new Case(cli, "overloaded", "529 overloaded_error on every request",
        anthropic(FakeAnthropic.Mode.OVERLOADED, 0), false));
    all.add(new Case(cli, "unauthorized", "401 authentication_error", anthropic(FakeAnthropic.Mode.UNAUTHORIZED, 0),
        false).cappedAt(longer));
    all.add(new Case(cli, "forbidden", "403 permission_error", anthropic(FakeAnthropic.Mode.FORBIDDEN, 0), false));
    all.add(new Case(cli, "billing", "400 invalid_request_error: credit balance too low",
        anthropic(FakeAnthropic.Mode.CREDIT_BALANCE, 0), false));
    all.add(new Case(cli, "cut-mid-stream", "200, message_start and a text delta, then the connection is dropped "
        + "(every request)", anthropic(FakeAnthropic.Mode.CUT_MID_STREAM, 0), false).cappedAt(longer));
  }

  static ServerStart anthropic(FakeAnthropic.Mode mode, int failFirst) {
    return () -> {
      FakeAnthropic fake = new FakeAnthropic();
      fake.mode = mode;
      fake.failFirst = failFirst;
      return server(fake.baseUrl(), fake.served, fake.requests, fake.firstFailure::get, fake);
    };
  }

  static ServerStart responses(FakeResponses.Mode mode, int failFirst) {
    return () -> {
      FakeResponses fake = new FakeResponses();
      fake.mode = mode;
      fake.failFirst = failFirst;
      return server(fake.baseUrl(), fake.served, fake.requests, fake.firstFailure::get, fake);
    };
  }

  static ServerStart gemini(FakeGemini.Mode mode, int failFirst) {
    return () -> {
      FakeGemini fake = new FakeGemini();
      fake.mode = mode;
      fake.failFirst = failFirst;
      return server(fake.baseUrl(), fake.served, fake.requests, fake.firstFailure::get, fake);
    };
  }

  private static Server server(String url, List<ServedRequest> served, List<JsonNode> requests,
      java.util.function.Supplier<String> failure, AutoCloseable fake) {
    return new Server() {
      @Override
      public String baseUrl() {
        return url;
      }

      @Override
      public List<JsonNode> requests() {
        return requests;
      }

      @Override
      public List<ServedRequest> served() {
        return served;
      }

      @Override
      public String firstFailure() {
        return failure.get();
      }

      @Override
      public void close() {
        try {
          fake.close();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    };
  }

  /**
   * The preset's argv (AgentPreset) plus what points the CLI at the fake, and an isolated home; with
   * a {@code resumeId}, the CLI's argv that resumes that session headless with the same output.
   */
  static Invocation invocation(Case c, Path program, Path home, Server server, String resumeId)
      throws IOException {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", AgentClis.nodeDir() + ":/usr/local/bin:/usr/bin:/bin");
    env.put("HOME", home.toString());
    env.put("LANG", "C.UTF-8");
    env.put("TZ", "UTC");
    Map<String, String> secrets = new LinkedHashMap<>();
    Map<String, String> files = new LinkedHashMap<>();
    List<String> argv = new ArrayList<>();
    argv.add(program.toString());
    switch (c.cli()) {
      case CLAUDE -> {
        argv.add("-p");
        if (resumeId != null) {
          argv.addAll(List.of("--resume", resumeId));
        }
        argv.addAll(List.of("--output-format", "stream-json", "--verbose"));
        env.put("CLAUDE_CONFIG_DIR", home.resolve(".claude").toString());
        env.put("ANTHROPIC_BASE_URL", server.baseUrl());
        env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        secrets.put(c.oauth() ? "CLAUDE_CODE_OAUTH_TOKEN" : "ANTHROPIC_API_KEY",
            c.oauth() ? "sk-ant-oat01-fake-subscription-token" : "sk-ant-api03-fake-key");
      }
      case CODEX -> {
        argv.add("exec");
        if (resumeId != null) {
          // the prompt still comes on stdin: no PROMPT argument (nor "-") is needed
          argv.addAll(List.of("resume", resumeId));
        }
        argv.addAll(List.of("--json", "--skip-git-repo-check"));
        argv.addAll(List.of("-c", "model_provider=\"local\"", "-c", "model_providers.local={name=\"local\",base_url=\""
            + server.baseUrl() + "\",env_key=\"OPENAI_API_KEY\",wire_api=\"responses\"}"));
        Files.createDirectories(home.resolve(".codex"));
        env.put("CODEX_HOME", home.resolve(".codex").toString());
        secrets.put("OPENAI_API_KEY", "sk-test-fake-key");
      }
      case GEMINI -> {
        if (resumeId != null) {
          argv.addAll(List.of("--resume", resumeId));
        }
        argv.addAll(List.of("--output-format", "stream-json", "--skip-trust", "-p", ""));
        files.put(".gemini/settings.json", """
            {
              "security": {"auth": {"selectedType": "gemini-api-key"}},
              "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
              "privacy": {"usageStatisticsEnabled": false}
            }
            """);
        env.put("GOOGLE_GEMINI_BASE_URL", server.baseUrl());
        secrets.put("GEMINI_API_KEY", "fake-gemini-key");
      }
      case OPENCODE -> {
        argv.add("run");
        if (resumeId != null) {
          argv.addAll(List.of("--session", resumeId));
        }
        argv.addAll(List.of("--format", "json"));
        files.put(".config/opencode/opencode.json", """
            {
              "model": "anthropic/claude-sonnet-4-5",
              "autoupdate": false,
              "share": "disabled",
              "provider": {"anthropic": {"options": {"baseURL": "%s/v1"}}}
            }
            """.formatted(server.baseUrl()));
        env.put("OPENCODE_DISABLE_MODELS_FETCH", "1");
        env.put("OPENCODE_DISABLE_AUTOUPDATE", "1");
        secrets.put("ANTHROPIC_API_KEY", "sk-ant-api03-fake-key");
      }
      default -> throw new IllegalStateException(c.cli().name());
    }
    argv.addAll(c.args());
    env.putAll(c.env());
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path file = home.resolve(f.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, f.getValue());
    }
    Map<String, String> shown = new LinkedHashMap<>(env);
    secrets.forEach((name, value) -> shown.put(name, "<" + name + ">"));
    env.putAll(secrets);
    return new Invocation(List.copyOf(argv), env, shown, files);
  }

  public static void main(String[] args) throws Exception {
    int parallel = 4;
    List<String> selection = new ArrayList<>();
    for (String arg : args) {
      if (arg.startsWith("--parallel=")) {
        parallel = Integer.parseInt(arg.substring("--parallel=".length()));
      } else {
        selection.add(arg);
      }
    }
    List<Case> chosen = cases().stream().filter(c -> selection.isEmpty() || selection.contains(c.cli().key)
        || selection.contains(c.cli().key + "/" + c.name())).toList();
    if (chosen.isEmpty()) {
      throw new IllegalArgumentException("no case matches " + selection + "; cases: " + cases().stream()
          .map(c -> c.cli().key + "/" + c.name()).toList());
    }
    Map<Cli, Path> programs = new LinkedHashMap<>();
    for (Case c : chosen) {
      if (!programs.containsKey(c.cli())) {
        Path program = AgentClis.install(c.cli().pkg, c.cli().bin);
        programs.put(c.cli(), program);
        recordHelp(c.cli(), program);
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(parallel);
    List<Future<String>> done = new ArrayList<>();
    for (Case c : chosen) {
      done.add(pool.submit(() -> record(c, programs.get(c.cli()))));
    }
    for (Future<String> f : done) {
      System.out.println(f.get());
    }
    // The fakes' handler threads are not daemons.
    System.exit(0);
  }

  private static void recordHelp(Cli cli, Path program) throws IOException, InterruptedException {
    Path home = fresh(SCRATCH.resolve(cli.key).resolve("help"));
    Files.createDirectories(cli.fixtures());
    for (Map.Entry<String, List<String>> help : cli.helps().entrySet()) {
      List<String> argv = new ArrayList<>(List.of(program.toString()));
      argv.addAll(help.getValue());
      ProcessBuilder pb = new ProcessBuilder(argv).directory(home.toFile()).redirectErrorStream(true);
      pb.environment().clear();
      pb.environment().putAll(Map.of("PATH", AgentClis.nodeDir() + ":/usr/local/bin:/usr/bin:/bin", "HOME",
          home.toString(), "LANG", "C.UTF-8", "COLUMNS", "100"));
      Path out = home.resolve(help.getKey() + ".txt");
      Process p = pb.redirectOutput(out.toFile()).start();
      p.getOutputStream().close();
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        p.destroyForcibly();
      }
      Placeholders names = new Placeholders(home, home, "0");
      Files.writeString(cli.fixtures().resolve(help.getKey() + ".txt"), names.apply(Files.readString(out)));
    }
  }

  /** What one run of a CLI left: its streams (files), exit code (null when killed) and times. */
  record Run(Invocation inv, Path work, Path out, Path err, long start, long wall, Integer exit) {
  }

  /** Runs the CLI once, {@code prompt} on stdin, and kills it after {@code cap}. */
  static Run run(Case c, Path program, Path home, Path work, Server server, String resumeId, String prompt,
      Path out, Path err) throws IOException, InterruptedException {
    Invocation inv = invocation(c, program, home, server, resumeId);
    ProcessBuilder pb = new ProcessBuilder(inv.argv()).directory(work.toFile());
    pb.environment().clear();
    pb.environment().putAll(inv.env());
    long start = System.currentTimeMillis();
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try (OutputStream stdin = p.getOutputStream()) {
      stdin.write(prompt.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      // it need not read its prompt to fail
    }
    boolean exited = p.waitFor(c.cap().toMillis(), TimeUnit.MILLISECONDS);
    long wall = System.currentTimeMillis() - start;
    if (!exited) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
    return new Run(inv, work, out, err, start, wall, exited ? p.exitValue() : null);
  }

  /**
   * Runs one case and writes its three fixture files (five for a resume with a first run: the first
   * run's streams as {@code <case>.first.stdout/.stderr}); returns a one-line summary.
   */
  static String record(Case c, Path program) throws Exception {
    Path dir = fresh(SCRATCH.resolve(c.cli().key).resolve(c.name()));
    Path home = Files.createDirectories(dir.resolve("home"));
    Path work = Files.createDirectories(dir.resolve("work"));
    try (Server server = c.server().start()) {
      String port = server.baseUrl().replaceAll("^http://127\\.0\\.0\\.1:(\\d+).*$", "$1");
      Placeholders names = new Placeholders(home, work, port);
      Path target = Files.createDirectories(c.cli().fixtures());
      String resumeId = null;
      ObjectNode first = null;
      int servedBefore = 0;
      int requestsBefore = 0;
      if (c.resume() == Resume.UNKNOWN) {
        resumeId = c.cli().unknownId();
      } else if (c.resume() != Resume.NONE) {
        Run r = run(c, program, home, work, server, null, FIRST_PROMPT, dir.resolve("first.stdout"),
            dir.resolve("first.stderr"));
        String stdout = Files.readString(r.out());
        resumeId = sessionId(stdout);
        servedBefore = server.served().size();
        requestsBefore = server.requests().size();
        first = JSON.createObjectNode();
        ArrayNode argv = first.putArray("argv");
        r.inv().argv().forEach(a -> argv.add(names.apply(a)));
        first.put("stdin", FIRST_PROMPT).put("cwd", "<WORK>");
        if (r.exit() == null) {
          first.putNull("exit_code");
        } else {
          first.put("exit_code", r.exit());
        }
        first.put("wall_ms", r.wall()).put("requests", servedBefore).put("session_id", resumeId)
            .put("stdout", "<case>.first.stdout").put("stderr", "<case>.first.stderr");
        ObjectNode truncated = first.putObject("truncated");
        writeStream(r.out(), target.resolve(c.name() + ".first.stdout"), names, truncated, "stdout");
        writeStream(r.err(), target.resolve(c.name() + ".first.stderr"), names, truncated, "stderr");
        if (c.resume() == Resume.UNKNOWN_BESIDE) {
          resumeId = c.cli().unknownId();
        } else if (resumeId == null) {
          throw new IllegalStateException(c.cli().key + "/" + c.name() + ": no session id in the first run's "
              + "stdout:\n" + stdout);
        }
      }
      Path runIn = c.resume() == Resume.OTHER_CWD ? Files.createDirectories(dir.resolve("work-other")) : work;
      String prompt = c.resume() == Resume.NONE ? PROMPT : RESUME_PROMPT;
      Run r = run(c, program, home, runIn, server, resumeId, prompt, dir.resolve("stdout"), dir.resolve("stderr"));
      Invocation inv = r.inv();
      long start = r.start();
      long wall = r.wall();
      boolean exited = r.exit() != null;
      ObjectNode meta = JSON.createObjectNode();
      meta.put("cli", c.cli().key).put("version", c.cli().version()).put("case", c.name())
          .put("description", c.description()).put("recorded_at", Instant.ofEpochMilli(start).toString());
      ArrayNode argv = meta.putArray("argv");
      inv.argv().forEach(a -> argv.add(names.apply(a)));
      ObjectNode env = meta.putObject("env");
      inv.shownEnv().forEach((k, v) -> env.put(k, names.apply(v)));
      ObjectNode files = meta.putObject("files");
      inv.files().forEach((k, v) -> files.put("<HOME>/" + k, names.apply(v)));
      meta.put("stdin", prompt).put("cwd", names.apply(runIn.toString())).put("cap_ms", c.cap().toMillis());
      if (exited) {
        meta.put("exit_code", r.exit());
      } else {
        meta.putNull("exit_code");
        meta.put("killed_after_ms", c.cap().toMillis()).put("note", "still running after " + c.cap().toSeconds()
            + " s: killed by the recorder (SIGKILL to it and its descendants)");
      }
      meta.put("wall_ms", wall);
      if (first != null) {
        meta.set("first_run", first);
      }
      List<ServedRequest> served = server.served().subList(servedBefore, server.served().size()).stream()
          .sorted(Comparator.comparingLong(ServedRequest::atMillis)).toList();
      ObjectNode requests = meta.putObject("requests");
      requests.put("count", served.size());
      ArrayNode timeline = requests.putArray("timeline");
      long previous = -1;
      for (ServedRequest sr : served) {
        ObjectNode entry = timeline.addObject().put("at_ms", sr.atMillis() - start).put("method", sr.method())
            .put("path", sr.path());
        if (sr.model() != null) {
          entry.put("model", sr.model());
        }
        entry.put("status", sr.status());
        if (previous >= 0) {
          entry.put("gap_ms", sr.atMillis() - previous);
        }
        previous = sr.atMillis();
      }
      if (c.resume() != Resume.NONE) {
        List<JsonNode> bodies = server.requests().subList(requestsBefore, server.requests().size());
        ObjectNode resumed = meta.putObject("resumed_requests");
        if (first != null) {
          String sent = bodies.toString();
          resumed.put("first_prompt_sent", sent.contains(FIRST_PROMPT.strip()))
              .put("first_answer_sent", sent.contains(c.cli().answer()));
        }
        ArrayNode conversations = resumed.putArray("conversations");
        bodies.forEach(b -> conversations.add(conversation(b, names)));
      } else if (!c.args().isEmpty()) {
        // what each turn sent, to see what the fake answered
        ArrayNode conversations = meta.putArray("conversations");
        server.requests().forEach(b -> conversations.add(conversation(b, names)));
      }
      String failure = server.firstFailure();
      if (failure == null) {
        meta.putNull("failure_response");
      } else {
        meta.put("failure_response", names.apply(failure));
      }
      ObjectNode truncated = meta.putObject("truncated");
      writeStream(r.out(), target.resolve(c.name() + ".stdout"), names, truncated, "stdout");
      writeStream(r.err(), target.resolve(c.name() + ".stderr"), names, truncated, "stderr");
      Files.writeString(target.resolve(c.name() + ".meta.json"), JSON.writeValueAsString(meta) + "\n");
      return c.cli().key + "/" + c.name() + ": exit " + (exited ? r.exit() : "killed") + ", " + wall + " ms, "
          + served.size() + " requests";
    }
  }

  /** The session id a CLI printed: the first session_id (Claude, Gemini), thread_id (Codex) or sessionID. */
  static String sessionId(String stdout) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"(?:session_id|thread_id|sessionID)\":\"([^\"]+)\"")
        .matcher(stdout);
    return m.find() ? m.group(1) : null;
  }

  /**
   * A model request's conversation as one line per message, {@code "role: text | text"}: Anthropic
   * {@code messages}, Responses {@code input}, Gemini {@code contents}; a block without text shows as
   * its type in brackets, a long text keeps its start and end.
   */
  static ObjectNode conversation(JsonNode body, Placeholders names) {
    ObjectNode shown = JSON.createObjectNode();
    if (body.hasNonNull("model")) {
      shown.put("model", body.path("model").asText());
    }
    ArrayNode lines = shown.putArray("messages");
    JsonNode messages = body.has("messages") ? body.path("messages")
        : body.has("input") ? body.path("input") : body.path("contents");
    for (JsonNode m : messages) {
      List<String> parts = new ArrayList<>();
      JsonNode content = m.has("parts") ? m.path("parts") : m.path("content");
      if (content.isTextual()) {
        parts.add(abbreviated(content.asText()));
      }
      for (JsonNode block : content.isArray() ? content : JSON.createArrayNode()) {
        parts.add(block.hasNonNull("text") ? abbreviated(block.path("text").asText())
            : "[" + (block.has("type") ? block.path("type").asText() : block.fieldNames().next()) + "]");
      }
      String role = m.has("role") ? m.path("role").asText() : "[" + m.path("type").asText() + "]";
      lines.add(names.apply(role + ": " + String.join(" | ", parts)));
    }
    return shown;
  }

  private static String abbreviated(String text) {
    return text.length() <= 200 ? text
        : text.substring(0, 80) + " [… " + (text.length() - 160) + " characters …] "
            + text.substring(text.length() - 80);
  }

  private static void writeStream(Path from, Path to, Placeholders names, ObjectNode truncated, String name)
      throws IOException {
    byte[] bytes = Files.readAllBytes(from);
    String text = names.apply(new String(bytes, StandardCharsets.UTF_8));
    byte[] clean = text.getBytes(StandardCharsets.UTF_8);
    if (clean.length > MAX_BYTES) {
      String head = new String(clean, 0, HEAD_BYTES, StandardCharsets.UTF_8);
      String tail = new String(clean, clean.length - TAIL_BYTES, TAIL_BYTES, StandardCharsets.UTF_8);
      head = head.substring(0, head.lastIndexOf('\n') + 1);
      tail = tail.substring(tail.indexOf('\n') + 1);
      int cut = clean.length - head.getBytes(StandardCharsets.UTF_8).length
          - tail.getBytes(StandardCharsets.UTF_8).length;
      text = head + "[... " + cut + " bytes cut by RecordAgentOutputs ...]\n" + tail;
      truncated.put(name, "kept the first " + head.length() + " and last " + tail.length() + " characters of "
          + clean.length + " bytes");
    }
    Files.writeString(to, text);
  }

  private static Path fresh(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> {
          try {
            Files.delete(p);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
      }
    }
    return Files.createDirectories(dir);
  }

  /** Machine-specific names in recorded text replaced by placeholders, the longest first. */
  record Placeholders(Path home, Path work, String port) {
    String apply(String text) {
      Map<String, String> names = new LinkedHashMap<>();
      names.put(work.toString(), "<WORK>");
      names.put(home.toString(), "<HOME>");
      names.put(AgentClis.PREFIX.toString(), "<AGENT_CLIS>");
      names.put(SCRATCH.toString(), "<SCRATCH>");
      names.put(Launcher.HOME.toString(), "<PROJECT>");
      if (!AgentClis.nodeDir().isEmpty()
          && !List.of("/usr/bin", "/bin", "/usr/local/bin").contains(AgentClis.nodeDir())) {
        names.put(AgentClis.nodeDir(), "<NODE_BIN>");
      }
      names.put("127.0.0.1:" + port, "127.0.0.1:<PORT>");
      names.put("localhost:" + port, "localhost:<PORT>");
      String host = hostName();
      if (host.length() > 3) {
        names.put(host, "<HOSTNAME>");
      }
      String result = text;
      for (Map.Entry<String, String> n : names.entrySet()) {
        result = result.replace(n.getKey(), n.getValue());
      }
      // The Gemini CLI writes its error reports to the temp directory.
      return result.replaceAll("(?<![\\w.])/tmp/", "<TMP>/");
    }

    private static String hostName() {
      try {
        return InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        return "";
      }
    }
  }
}
