"""The pre-commit hooks, run by the real `pre-commit` on a temporary git repository.

pre-commit installs the hook's environment with pip (onnxfix and its dependencies from
PyPI), once per test session, in a private PRE_COMMIT_HOME.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]

HAZARD = '''\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.data * 2
'''
SIZE_HAZARD = '''\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        return x.reshape(n.item(), -1)
'''
CLEAN = '''\
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.detach() * 2
'''


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=_env())


def _env() -> dict:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str, dict]:
    """This working tree (committed or not) as a git repository at one commit, and the
    environment pre-commit runs in."""
    repo = tmp_path_factory.mktemp("hookrepo")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    for name in listed:
        source = ROOT / name
        if source.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    assert git(repo, "commit", "-qm", "onnxfix").returncode == 0
    sha = git(repo, "rev-parse", "HEAD").stdout.strip()
    env = _env()
    env["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    return repo, sha, env


def user_repo(tmp_path: Path, hook_repo, hooks: str) -> Path:
    repo_path, sha, env = hook_repo
    user = tmp_path / "user"
    user.mkdir()
    git(user, "init", "-q")
    (user / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {repo_path}\n    rev: {sha}\n    hooks:\n{hooks}"
    )
    git(user, "add", ".pre-commit-config.yaml")
    assert git(user, "commit", "-qm", "config").returncode == 0
    installed = subprocess.run([*PRE_COMMIT, "install"], cwd=user, capture_output=True, text=True, env=env)
    assert installed.returncode == 0, installed.stderr
    return user


def commit(user: Path, hook_repo, name: str, text: str) -> subprocess.CompletedProcess:
    (user / name).write_text(text)
    git(user, "add", name)
    env = hook_repo[2]
    return subprocess.run(["git", "commit", "-m", f"add {name}"], cwd=user, capture_output=True, text=True, env=env)


def test_a_commit_with_a_hazard_is_blocked_and_a_clean_one_passes(tmp_path, hook_repo):
    user = user_repo(tmp_path, hook_repo, "      - id: onnxfix\n")
    blocked = commit(user, hook_repo, "model.py", HAZARD)
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert "model.py:7:16: ONX301" in output
    assert git(user, "log", "--format=%s").stdout.split("\n")[0] == "config"  # nothing committed

    passed = commit(user, hook_repo, "model.py", CLEAN)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert git(user, "log", "--format=%s").stdout.split("\n")[0] == "add model.py"


def test_the_fix_hook_rewrites_and_the_recommit_passes(tmp_path, hook_repo):
    hooks = (  # the argument is quoted: a YAML flow sequence would split it on the comma
        "      - id: onnxfix-fix\n        args: ['--exporters=dynamo,legacy']\n"
        "      - id: onnxfix\n        args: ['--exporters=dynamo,legacy']\n"
    )
    user = user_repo(tmp_path, hook_repo, hooks)
    first = commit(user, hook_repo, "model.py", SIZE_HAZARD)
    assert first.returncode != 0  # pre-commit fails a hook that modified files
    assert "return x.reshape(n, -1)\n" in (user / "model.py").read_text()
    again = commit(user, hook_repo, "model.py", (user / "model.py").read_text())
    assert again.returncode == 0, again.stdout + again.stderr


def test_try_repo_reports_the_hazard(tmp_path, hook_repo):
    repo_path, _, env = hook_repo
    user = tmp_path / "try"
    user.mkdir()
    git(user, "init", "-q")
    (user / "model.py").write_text(HAZARD)
    (user / "clean.py").write_text(CLEAN)
    git(user, "add", ".")
    # one run: try-repo installs the hook's environment afresh each time (a store of its own);
    # a clean file passing is the commit test's
    run = [*PRE_COMMIT, "try-repo", str(repo_path), "onnxfix", "--files", "model.py", "clean.py"]
    blocked = subprocess.run(run, cwd=user, capture_output=True, text=True, env=env)
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert "model.py:7:16: ONX301" in blocked.stdout and "clean.py:" not in blocked.stdout
