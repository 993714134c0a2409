package dev.orchestrate.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A known coding-agent CLI (agent.preset): its program, the flags that make it run headless with
 * machine-readable output, and where it comes from. Every preset takes the prompt on stdin (no
 * argv length limit for large prompts). The flags were checked against each CLI's {@code --help}
 * (versions in docs/agents.md).
 */
public enum AgentPreset {
  /** Claude Code: {@code claude -p} reads the prompt from stdin; stream-json needs --verbose. */
  CLAUDE("claude", List.of("-p", "--output-format", "stream-json", "--verbose"),
      "npm install -g @anthropic-ai/claude-code", true),
  /** Codex: {@code codex exec} with no prompt argument reads it from stdin; --json prints JSONL events. */
  CODEX("codex", List.of("exec", "--json", "--skip-git-repo-check"), "npm install -g @openai/codex", false),
  /**
   * Gemini CLI: -p runs headless and appends its (empty) value to the prompt read from stdin;
   * headless, it refuses a folder it was never told to trust (exit 55) without --skip-trust.
   */
  GEMINI("gemini", List.of("--output-format", "stream-json", "--skip-trust", "-p", ""),
      "npm install -g @google/gemini-cli", false),
  /** opencode: {@code opencode run} reads piped stdin as the message; --format json prints JSONL events. */
  OPENCODE("opencode", List.of("run", "--format", "json"), "npm install -g opencode-ai", true),
  /**
   * Any agent that speaks the Agent Client Protocol (JSON-RPC 2.0 over its stdin and stdout):
   * agent.command is the whole argv, and orchestrate is its client (docs/agents.md, "ACP"). The
   * prompt is sent as {@code session/prompt}, not piped. A cost is known only when the agent
   * reports one, so no budget relies on it.
   */
  ACP(null, List.of(), null, false),
  /** Any program: agent.command is the whole argv, the prompt arrives on stdin (docs/agents.md). */
  COMMAND(null, List.of(), null, false);

  private final String program;
  private final List<String> headlessArgs;
  private final String installHint;
  private final boolean reportsCost;

  AgentPreset(String program, List<String> headlessArgs, String installHint, boolean reportsCost) {
    this.program = program;
    this.headlessArgs = headlessArgs;
    this.installHint = installHint;
    this.reportsCost = reportsCost;
  }

  /**
   * The flag that tells the CLI the most it may spend on one job, in US dollars; null when it has
   * none. Claude Code's {@code --max-budget-usd} ends the session once its cost passes the amount
   * (checked between turns: one turn may go past it).
   */
  public String costCapFlag() {
    return this == CLAUDE ? "--max-budget-usd" : null;
  }

  /**
   * Whether its output reader finds a cost in US dollars (docs/agents.md, "Usage"): Codex and the
   * Gemini CLI report tokens only, a plain command reports nothing. A cost budget needs one that does.
   */
  public boolean reportsCost() {
    return reportsCost;
  }

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Whether, on a resumed session, the CLI reports the session's cost so far rather than the run's:
   * Claude Code's {@code total_cost_usd} (recorded in src/test/resources/agent-outputs, "Resuming a
   * session").
   */
  public boolean sessionCost() {
    return this == CLAUDE;
  }

  /**
   * Whether every agent of this preset reports its tokens, so that a token budget can be kept: the
   * CLIs do; a plain command does not, nor need an ACP agent (usage is optional in the protocol).
   */
  public boolean reportsTokens() {
    return this != COMMAND && this != ACP;
  }

  /** Whether, on a resumed session, the CLI's token counts are the session's so far: Codex's {@code turn.completed}. */
  public boolean sessionTokens() {
    return this == CODEX;
  }

  /**
   * Whether orchestrate can continue one of this CLI's sessions headlessly
   * (docs/verification.md, "Resuming the agent's session"): every preset CLI can; an ACP agent can
   * when it advertises {@code loadSession} (asked at each attempt; one that cannot gets a fresh
   * session); a plain command cannot (nothing says what its session would be).
   */
  public boolean resumes() {
    return this != COMMAND;
  }

  /**
   * The argv that continues session {@code id} with the prompt on stdin, from the argv of a fresh
   * attempt ({@code command}: launcher, headless flags, the user's args, a cost cap), checked against
   * each CLI's {@code --help}: Claude Code {@code --resume ID}, Codex {@code exec ... resume ID -},
   * Gemini CLI {@code --resume ID}, opencode {@code run --session ID}; an ACP agent's argv is
   * unchanged (the session is loaded with {@code session/load}).
   *
   * @throws IllegalStateException for {@link #COMMAND}, which cannot resume
   */
  public List<String> resumeArgv(List<String> command, String id) {
    List<String> argv = new ArrayList<>(command);
    switch (this) {
      case CLAUDE, GEMINI -> {
        argv.add("--resume");
        argv.add(id);
      }
      case OPENCODE -> {
        argv.add("--session");
        argv.add(id);
      }
      case CODEX -> {
        if (!argv.contains("exec")) {
          throw new IllegalStateException("a codex command without exec: " + command);
        }
        // codex exec [OPTIONS] <COMMAND> [ARGS]: exec's options (the user's --sandbox, -C, --profile,
        // which `exec resume` does not take) stay before the subcommand (tried with
        // codex 0.169.0: after `resume` they are refused)
        argv.add("resume");
        argv.add(id);
        argv.add("-"); // the prompt from stdin
      }
      case ACP -> {
        // session/load, over the protocol: the same program
      }
      case COMMAND -> throw new IllegalStateException("a plain command cannot resume a session");
      default -> throw new IllegalStateException(name());
    }
    return List.copyOf(argv);
  }

  /** Whether agent.command is the whole argv and must be given: {@link #COMMAND} and {@link #ACP}. */
  public boolean needsCommand() {
    return program == null;
  }

  /** The program name looked up on PATH; null for {@link #COMMAND} and {@link #ACP}. */
  public String program() {
    return program;
  }

  /** How to install the program, e.g. {@code npm install -g @openai/codex}; null for {@link #COMMAND}. */
  public String installHint() {
    return installHint;
  }

  /**
   * The argv to spawn: {@code command} (the program, or a launcher such as {@code ["npx", "claude"]};
   * the preset's program when empty), the preset's headless flags, then the user's {@code args}.
   */
  public List<String> argv(List<String> command, List<String> args) {
    List<String> argv = new ArrayList<>();
    if (command.isEmpty() && program != null) {
      argv.add(program);
    } else {
      argv.addAll(command);
    }
    if (!argv.isEmpty()) {
      argv.addAll(headlessArgs);
      argv.addAll(args);
    }
    return List.copyOf(argv);
  }
}
