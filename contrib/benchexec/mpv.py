# BenchExec tool-info module for mpv, the multi-property verifier for Linux
# driver API rules. Use it as `contrib.benchexec.mpv` from the repository
# root (see README, "BenchExec"), or copy it into benchexec/tools/.

import re

import benchexec.result as result
import benchexec.tools.template


class Tool(benchexec.tools.template.BaseTool2):
    """
    mpv checks a C module against SV-COMP properties (G ! label(L),
    G ! call(f())) and its own rule automata, and prints SV-COMP's
    `Verification result:` line with `--format svcomp`.
    """

    def executable(self, tool_locator):
        return tool_locator.find_executable("mpv", subdir="target/release")

    def name(self):
        return "mpv"

    def version(self, executable):
        return self._version_from_tool(executable, line_prefix="mpv")

    def cmdline(self, executable, options, task, rlimits):
        cmd = [executable, "verify", "--format", "svcomp"]
        if task.property_file:
            cmd += ["--prp", task.property_file]
        if rlimits.cputime and "--time-limit" not in options:
            # mpv stops its analysis at its own limit and reports what it
            # has; leave it a margin before BenchExec's.
            cmd += ["--time-limit", str(max(1, int(rlimits.cputime * 0.9)))]
        return cmd + list(options) + [task.single_input_file]

    def determine_result(self, run):
        for line in reversed(run.output):
            m = re.match(r"^Verification result:\s*(\S+)", line)
            if not m:
                continue
            verdict = m.group(1)
            if verdict == "TRUE":
                return result.RESULT_TRUE_PROP
            if verdict == "FALSE(unreach-call)":
                return result.RESULT_FALSE_REACH
            if verdict.startswith("FALSE"):
                return result.RESULT_FALSE_PROP
            return result.RESULT_UNKNOWN
        if run.was_timeout:
            return "TIMEOUT"
        if run.exit_code.value not in (0, None):
            return result.RESULT_ERROR + f"(exit code {run.exit_code.value})"
        return result.RESULT_ERROR
