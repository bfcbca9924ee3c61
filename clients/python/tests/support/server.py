"""Starts a real Vigil server (`node packages/server/bin/vigil.js serve`, what `npm start` runs, PGlite in
a temporary directory) and runs the `vigil` CLI against it, as an operator would."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

import httpx

REPO_ROOT = Path(__file__).resolve().parents[4]
CLI = REPO_ROOT / "packages" / "server" / "bin" / "vigil.js"
LISTENING = re.compile(r"listening on (http://\S+) ")


def founder_email(org_name: str) -> str:
    """An address at a domain made from the organization's name ("No AI" → admin@no-ai.example)."""
    return f"admin@{re.sub(r'[^a-z0-9]+', '-', org_name.lower()).strip('-')}.example"


def _clean_env(extra: Dict[str, str]) -> Dict[str, str]:
    inherited = {
        name: value
        for name, value in os.environ.items()
        if not re.match(r"^(PORT|HOST|DATABASE_URL|REDIS_URL|LOG_LEVEL|AI_.*|VIGIL_.*)$", name)
    }
    return {**inherited, "LOG_LEVEL": "warn", **extra}


@dataclass
class Org:
    id: str
    api_key: str


@dataclass
class VigilServer:
    site_url: str
    data_dir: str
    process: "subprocess.Popen[str]"
    env: Dict[str, str] = field(repr=False)
    output: List[str] = field(default_factory=lambda: [], repr=False)

    @property
    def base_url(self) -> str:
        return self.site_url + "/api/v1"

    def cli(self, *args: str) -> Dict[str, Any]:
        """`vigil ARGS --json`, which must succeed: its JSON answer."""
        done = subprocess.run(
            ["node", str(CLI), *args, "--json"], cwd=REPO_ROOT, env=self.env, capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            raise RuntimeError(f"vigil {' '.join(args)} exited {done.returncode}: {done.stderr}")
        return json.loads(done.stdout) if done.stdout.strip() else {}

    def admin(self, command: Dict[str, Any]) -> Dict[str, Any]:
        """Sends a command over the server's admin socket, as the CLI does (without starting Node)."""
        transport = httpx.HTTPTransport(uds=os.path.join(self.data_dir, "admin.sock"))
        with httpx.Client(transport=transport) as http:
            response = http.post("http://vigil/", json=command)
        if response.status_code != 200:
            raise RuntimeError(f"{command['kind']} failed: {response.text}")
        answer: Dict[str, Any] = response.json()
        return answer

    def create_org(self, name: str, plan: str) -> Org:
        answer = self.admin({"kind": "org.create", "name": name, "plan": plan, "adminEmail": founder_email(name)})
        return Org(id=answer["org"]["id"], api_key=answer["apiKey"])

    def create_org_with_cli(self, name: str, plan: str) -> Org:
        answer = self.cli("org", "create", "--name", name, "--plan", plan, "--admin-email", founder_email(name))
        return Org(id=answer["org"]["id"], api_key=answer["apiKey"])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.data_dir, ignore_errors=True)


def start_vigil(extra_env: Optional[Dict[str, str]] = None) -> VigilServer:
    data_dir = tempfile.mkdtemp(prefix="vigil-python-")
    env = _clean_env({"VIGIL_DATA_DIR": data_dir, **(extra_env or {})})
    process = subprocess.Popen(
        ["node", str(CLI), "serve"],
        cwd=REPO_ROOT,
        env={**env, "PORT": "0", "HOST": "127.0.0.1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    output: List[str] = []
    for line in process.stdout:
        output.append(line)
        found = LISTENING.search(line)
        if found:
            server = VigilServer(site_url=found.group(1), data_dir=data_dir, process=process, env=env, output=output)
            # Keep reading, so that a full pipe never blocks the server.
            threading.Thread(target=lambda: output.extend(process.stdout or []), daemon=True).start()
            return server
    shutil.rmtree(data_dir, ignore_errors=True)
    raise RuntimeError("Vigil exited before listening:\n" + "".join(output))
