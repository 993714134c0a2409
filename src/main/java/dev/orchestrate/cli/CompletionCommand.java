package dev.orchestrate.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code orchestrate completion bash|zsh|fish}: a completion script generated from the command
 * model (commands, subcommands, options), which asks {@code orchestrate __complete ids} for the
 * item ids of {@code status}, {@code unblock} and {@code logs}.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
    description = {"Print a shell completion script: commands, options, file names for --state, --logs and --config, "
        + "and the item ids of the current project for status, unblock and logs.",
        "  bash:  source <(orchestrate completion bash)        (e.g. in ~/.bashrc)",
        "  zsh:   source <(orchestrate completion zsh)         (e.g. in ~/.zshrc)",
        "  fish:  orchestrate completion fish | source"})
final class CompletionCommand implements Callable<Integer> {
  /** The commands whose ID parameter completes to item ids. */
  static final Set<String> TAKES_ITEM_IDS = Set.of("status", "unblock", "approve", "reject", "diff", "logs");
  /** The options whose value is a file name. */
  static final Set<String> TAKES_FILES = Set.of("--state", "--logs", "--config");

  enum Shell { BASH, ZSH, FISH }

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "SHELL", description = "bash, zsh or fish")
  Shell shell;

  @Override
  public Integer call() {
    CommandSpec root = spec.root();
    PrintWriter out = spec.commandLine().getOut();
    out.print(switch (shell) {
      case BASH -> bash(root);
      case ZSH -> "# orchestrate zsh completion: orchestrate completion zsh\n"
          + "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n" + bash(root);
      case FISH -> fish(root);
    });
    out.flush();
    return ExitCode.OK;
  }

  /** Every visible command by its path below the root ("" for the root, "memory list"). */
  static Map<String, CommandSpec> commands(CommandSpec root) {
    Map<String, CommandSpec> all = new LinkedHashMap<>();
    collect("", root, all);
    return all;
  }

  private static void collect(String path, CommandSpec spec, Map<String, CommandSpec> all) {
    all.put(path, spec);
    spec.subcommands().forEach((name, sub) -> {
      CommandSpec s = sub.getCommandSpec();
      if (!s.usageMessage().hidden() && s.name().equals(name)) {
        collect(path.isEmpty() ? name : path + " " + name, s, all);
      }
    });
  }

  private static List<String> subcommands(CommandSpec spec) {
    List<String> names = new ArrayList<>();
    spec.subcommands().forEach((name, sub) -> {
      if (!sub.getCommandSpec().usageMessage().hidden() && sub.getCommandSpec().name().equals(name)) {
        names.add(name);
      }
    });
    return names;
  }

  private static List<OptionSpec> options(CommandSpec spec) {
    return spec.options().stream().filter(o -> !o.hidden()).toList();
  }

  private static boolean takesValue(OptionSpec o) {
    return o.arity().max() > 0 && !o.type().equals(boolean.class) && !o.type().equals(boolean[].class);
  }

  static String bash(CommandSpec root) {
    Map<String, CommandSpec> commands = commands(root);
    Set<String> valued = new LinkedHashSet<>();
    StringBuilder subs = new StringBuilder();
    StringBuilder opts = new StringBuilder();
    commands.forEach((path, spec) -> {
      List<String> names = new ArrayList<>();
      for (OptionSpec o : options(spec)) {
        names.addAll(List.of(o.names()));
        if (takesValue(o)) {
          valued.addAll(List.of(o.names()));
        }
      }
      subs.append("    '").append(path).append("') echo '").append(String.join(" ", subcommands(spec)))
          .append("' ;;\n");
      opts.append("    '").append(path).append("') echo '").append(String.join(" ", names)).append("' ;;\n");
    });
    return """
        # orchestrate bash completion: source <(orchestrate completion bash)
        _orchestrate_subcommands() {
          case "$1" in
        %s  esac
        }
        _orchestrate_options() {
          case "$1" in
        %s  esac
        }
        _orchestrate() {
          local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
          local valued=' %s '
          local path='' state=() w i skip=0
          for ((i = 1; i < COMP_CWORD; i++)); do
            w="${COMP_WORDS[i]}"
            if ((skip)); then
              [[ "${COMP_WORDS[i-1]}" == --state ]] && state=(--state "$w")
              skip=0
              continue
            fi
            case "$w" in
              --state=*) state=(--state "${w#--state=}"); continue ;;
              -*) [[ "$valued" == *" $w "* ]] && skip=1; continue ;;
            esac
            if [[ " $(_orchestrate_subcommands "$path") " == *" $w "* ]]; then
              path="${path:+$path }$w"
            fi
          done
          case "$prev" in
            %s) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
          esac
          if [[ "$valued" == *" $prev "* ]]; then
            COMPREPLY=()
            return 0
          fi
          if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "$(_orchestrate_options "$path")" -- "$cur"))
            return 0
          fi
          local words
          words="$(_orchestrate_subcommands "$path")"
          case "$path" in
            %s) words="$words $("${COMP_WORDS[0]}" "${state[@]}" __complete ids 2>/dev/null)" ;;
            completion) words='bash zsh fish' ;;
            help) words="$(_orchestrate_subcommands '')" ;;
          esac
          COMPREPLY=($(compgen -W "$words" -- "$cur"))
        }
        complete -o default -F _orchestrate orchestrate
        """.formatted(subs, opts, String.join(" ", valued), String.join("|", TAKES_FILES),
        String.join("|", TAKES_ITEM_IDS.stream().sorted().toList()));
  }

  static String fish(CommandSpec root) {
    StringBuilder s = new StringBuilder("# orchestrate fish completion: orchestrate completion fish | source\n");
    s.append("complete -c orchestrate -f\n");
    List<String> top = subcommands(root);
    s.append("complete -c orchestrate -n '__fish_use_subcommand' -a '").append(String.join(" ", top)).append("'\n");
    commands(root).forEach((path, spec) -> {
      String condition;
      if (path.isEmpty()) {
        condition = "";
      } else if (path.contains(" ")) {
        condition = " -n '__fish_seen_subcommand_from " + path.substring(path.indexOf(' ') + 1) + "'";
      } else {
        List<String> subs = subcommands(spec);
        condition = " -n '__fish_seen_subcommand_from " + path
            + (subs.isEmpty() ? "" : "; and not __fish_seen_subcommand_from " + String.join(" ", subs)) + "'";
        if (!subs.isEmpty()) {
          s.append("complete -c orchestrate").append(condition).append(" -a '").append(String.join(" ", subs))
              .append("'\n");
        }
      }
      for (OptionSpec o : options(spec)) {
        if (!path.isEmpty() && o.inherited()) {
          continue; // offered once, for the root
        }
        s.append("complete -c orchestrate").append(condition);
        for (String name : o.names()) {
          s.append(name.startsWith("--") ? " -l " + name.substring(2) : " -s " + name.substring(1));
        }
        if (takesValue(o)) {
          s.append(TAKES_FILES.contains(o.longestName()) ? " -r -F" : " -r");
        }
        String description = o.description().length == 0 ? "" : firstSentence(o.description()[0]);
        if (!description.isEmpty()) {
          s.append(" -d '").append(description.replace("'", "\\'")).append("'");
        }
        s.append('\n');
      }
    });
    s.append("complete -c orchestrate -n '__fish_seen_subcommand_from ")
        .append(String.join(" ", TAKES_ITEM_IDS.stream().sorted().toList()))
        .append("' -a '(orchestrate __complete ids 2>/dev/null)'\n");
    s.append("complete -c orchestrate -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n");
    return s.toString();
  }

  private static String firstSentence(String text) {
    String plain = text.replaceAll("\\$\\{[^}]*}", "").replace("%%", "%");
    int end = plain.indexOf(". ");
    String first = end < 0 ? plain : plain.substring(0, end);
    return first.length() > 60 ? first.substring(0, 59) + "…" : first;
  }
}
