"""The git reads the profile-data extractors share (scripts/extract-*.py, e.g. extract-megatron-arguments.py,
scripts/extract-torchtitan-config-keys.py, scripts/extract-deepspeed-config-keys.py): run git in a mirror, and resolve each
profile version's revision to its commit and commit date."""
import subprocess


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def revisions(repo, versions):
    """(version, commit, date YYYY-MM-DD) for each (version, rev) of a profile's list."""
    for version, rev in versions:
        commit = git(repo, "rev-parse", f"{rev}^{{commit}}").strip()
        yield version, commit, git(repo, "show", "-s", "--format=%cs", commit).strip()
