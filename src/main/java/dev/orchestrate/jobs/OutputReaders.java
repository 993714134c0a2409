package dev.orchestrate.jobs;

import dev.orchestrate.config.AgentPreset;

/** The reader of each preset's stdout; a plain command's output is not read (its tail is the summary). */
final class OutputReaders {
  private OutputReaders() {
  }

  /** A fresh reader for one attempt. */
  static OutputReader of(AgentPreset preset) {
    return switch (preset) {
      case CLAUDE -> new ClaudeReader();
      case CODEX -> new CodexReader();
      case GEMINI -> new GeminiReader();
      case OPENCODE -> new OpencodeReader();
      // an ACP agent's reader is its client, made with the job it serves (AgentRunner)
      case ACP, COMMAND -> OutputReader.NONE;
    };
  }
}
