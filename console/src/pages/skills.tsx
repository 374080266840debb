// Skills: versions and their diff, channel history, publish / promote / rollback, the canary share,
// SKILL.md import and export, and a match playground that shows why each skill matched.
import { useEffect, useState } from "preact/hooks";

import { diffLines } from "../diff";
import {
  CreateSkillDocument,
  ImportSkillDocument,
  MatchSkillsDocument,
  type MatchSkillsQuery,
  PromoteSkillCandidateDocument,
  PublishSkillVersionDocument,
  RollbackSkillDocument,
  SetSkillCanaryDocument,
  SetStatusDocument,
  SkillDetailDocument,
  type SkillDetailQuery,
  SkillMdDocument,
  SkillsDocument,
} from "../generated/graphql";
import { href, Link, navigate } from "../router";
import { useSession } from "../session";
import {
  Badge,
  EditForm,
  Field,
  FormErrors,
  LoadError,
  messageOf,
  Notice,
  PageHeader,
  Pager,
  SelectField,
  statusTone,
  TextAreaField,
  TextField,
  useCursorPages,
  useLoad,
  useMutation,
  when,
} from "../ui";
import { SpaceOptionsError, spaceChoices, useSpaceOptions } from "./tools";

const PAGE_SIZE = 50;

export function SkillsPage({ sub }: { sub: string }) {
  if (sub === "new") return <CreateSkill />;
  if (sub === "import") return <ImportSkill />;
  if (sub) return <SkillDetail id={decodeURIComponent(sub)} />;
  return <SkillList />;
}

function SkillList() {
  const { api, can } = useSession();
  const [search, setSearch] = useState("");
  const [applied, setApplied] = useState("");
  const pages = useCursorPages(applied);
  const skills = useLoad(
    () => api.request(SkillsDocument, { first: PAGE_SIZE, after: pages.after, filter: applied ? { search: applied } : null }),
    [applied, pages.after],
  );
  const connection = skills.data?.skills;
  return (
    <>
      <PageHeader title="Skills">
        {can.manageSome && (
          <>
            <Link class="button primary" to="/skills/new">
              Create skill
            </Link>
            <Link class="button" to="/skills/import">
              Import SKILL.md
            </Link>
          </>
        )}
      </PageHeader>
      <form
        class="filters"
        role="search"
        aria-label="Filter skills"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(search.trim());
        }}
      >
        <TextField label="Search" name="search" value={search} onInput={setSearch} />
        <button type="submit">Filter</button>
      </form>
      <LoadError error={skills.error} retry={skills.reload} />
      {connection && (
        <>
          <table>
            <caption class="sr-only">Skills</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Label</th>
                <th scope="col">Scope</th>
                <th scope="col">Production</th>
                <th scope="col">Candidate</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {connection.edges.map(({ node }) => (
                <tr key={node.id}>
                  <td>
                    <Link to={`/skills/${encodeURIComponent(node.id)}`}>{node.name}</Link>
                  </td>
                  <td>{node.label}</td>
                  <td>{node.space ? node.space.name : "global"}</td>
                  <td>{node.version}</td>
                  <td>{node.candidateVersion ? `${node.candidateVersion} (${node.canaryPercent}% of sessions)` : "—"}</td>
                  <td>
                    <Badge tone={statusTone(node.status)}>{node.status}</Badge>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Skills" pages={pages} pageSize={PAGE_SIZE} connection={connection} />
        </>
      )}
      <MatchPlayground />
    </>
  );
}

function SpaceChoice({ value, onChange, allowGlobal, errors }: { value: string; onChange: (value: string) => void; allowGlobal: boolean; errors: { field: string[] | null; code: string; message: string }[] }) {
  const spaces = useSpaceOptions();
  const options: (readonly [string, string])[] = [
    ...(allowGlobal ? [["", "Global (every space)"] as const] : []),
    ...spaceChoices(spaces.data),
  ];
  return (
    <>
      <SelectField label="Space" name="spaceId" value={value} onChange={onChange} options={options} errors={errors} />
      <SpaceOptionsError spaces={spaces} />
    </>
  );
}

function CreateSkill() {
  const { api, can, viewer } = useSession();
  const [spaceId, setSpaceId] = useState(viewer.space?.id ?? "");
  const [name, setName] = useState("");
  const [label, setLabel] = useState("");
  const [description, setDescription] = useState("");
  const [prompt, setPrompt] = useState("");
  const [triggerHints, setTriggerHints] = useState("");
  const [boundary, setBoundary] = useState("");
  const mutation = useMutation();
  if (!can.manageSome) return <p>This key cannot create skills.</p>;
  const submit = async (event: Event) => {
    event.preventDefault();
    const payload = await mutation.run(
      async () =>
        (
          await api.request(CreateSkillDocument, {
            input: {
              spaceId: spaceId || null,
              name,
              label,
              description,
              prompt,
              triggerHints: triggerHints.split(",").map((hint) => hint.trim()).filter(Boolean),
              boundary: boundary || null,
            },
          })
        ).createSkill,
    );
    if (payload?.skill) navigate(href(`/skills/${encodeURIComponent(payload.skill.id)}`));
  };
  return (
    <>
      <PageHeader title="Create skill" />
      <EditForm wide onSubmit={submit} mutation={mutation} fields={["spaceId", "name", "label", "description", "prompt", "triggerHints", "boundary"]} submitLabel="Create skill" cancel="/skills">
        {can.admin && <SpaceChoice value={spaceId} onChange={setSpaceId} allowGlobal errors={mutation.errors} />}
        <TextField label="Name" name="name" value={name} onInput={setName} errors={mutation.errors} hint="1-64 of a-z, 0-9 and single hyphens." />
        <TextField label="Label" name="label" value={label} onInput={setLabel} errors={mutation.errors} />
        <TextField label="Description" name="description" value={description} onInput={setDescription} errors={mutation.errors} />
        <TextAreaField label="Prompt" name="prompt" value={prompt} onInput={setPrompt} errors={mutation.errors} rows={10} mono hint="Markdown methodology; becomes version 1.0.0 in PRODUCTION." />
        <TextField label="Trigger hints" name="triggerHints" value={triggerHints} onInput={setTriggerHints} errors={mutation.errors} hint="Comma-separated phrases that signal the skill applies." />
        <TextField label="Boundary" name="boundary" value={boundary} onInput={setBoundary} errors={mutation.errors} hint="What the skill must not be used for." />
      </EditForm>
    </>
  );
}

function ImportSkill() {
  const { api, can, viewer } = useSession();
  const [spaceId, setSpaceId] = useState(viewer.space?.id ?? "");
  const [text, setText] = useState("");
  const [replace, setReplace] = useState(false);
  const mutation = useMutation();
  if (!can.manageSome) return <p>This key cannot import skills.</p>;
  const submit = async (event: Event) => {
    event.preventDefault();
    const payload = await mutation.run(
      async () => (await api.request(ImportSkillDocument, { input: { spaceId: spaceId || null, text, replaceExisting: replace } })).importSkill,
    );
    if (payload?.skill) navigate(href(`/skills/${encodeURIComponent(payload.skill.id)}`));
  };
  return (
    <>
      <PageHeader title="Import SKILL.md" />
      <EditForm wide onSubmit={submit} mutation={mutation} fields={["spaceId", "text"]} submitLabel="Import skill" cancel="/skills">
        {can.admin && <SpaceChoice value={spaceId} onChange={setSpaceId} allowGlobal errors={mutation.errors} />}
        <div class="field">
          <label for="skill-file">SKILL.md file</label>
          <input id="skill-file" type="file" accept=".md,text/markdown" onChange={async (event) => setText((await event.currentTarget.files?.[0]?.text()) ?? text)} />
        </div>
        <TextAreaField label="SKILL.md text" name="text" value={text} onInput={setText} errors={mutation.errors} rows={14} mono hint="YAML front matter (name, description, metadata) then the Markdown prompt." />
        <label class="check">
          <input type="checkbox" checked={replace} onChange={(event) => setReplace(event.currentTarget.checked)} /> Update the skill of that name if it exists
        </label>
      </EditForm>
    </>
  );
}

type Skill = NonNullable<SkillDetailQuery["skill"]>;

function SkillDetail({ id }: { id: string }) {
  const { api, can } = useSession();
  const detail = useLoad(() => api.request(SkillDetailDocument, { id }), [id]);
  const skill = detail.data?.skill;
  if (detail.data && !skill) {
    return (
      <>
        <PageHeader title="Skill not found" />
        <p>
          No skill <code>{id}</code> is visible to this key. <Link to="/skills">Back to Skills</Link>
        </p>
      </>
    );
  }
  const manage = skill ? can.manage(skill.space?.id ?? null) && (skill.space !== null || can.admin) : false;
  return (
    <>
      <PageHeader title={skill ? `Skill ${skill.name}` : "Skill"}>
        <Link class="button" to="/skills">
          All skills
        </Link>
      </PageHeader>
      <LoadError error={detail.error} retry={detail.reload} />
      {skill && (
        <>
          <dl class="facts">
            <dt>Label</dt>
            <dd>{skill.label}</dd>
            <dt>Scope</dt>
            <dd>{skill.space ? `space ${skill.space.name}` : "global"}</dd>
            <dt>Status</dt>
            <dd>
              <Badge tone={statusTone(skill.status)}>{skill.status}</Badge>
            </dd>
            <dt>Production</dt>
            <dd>
              {skill.version} ({skill.charCount} characters)
            </dd>
            <dt>Candidate</dt>
            <dd>{skill.candidateVersion ? `${skill.candidateVersion}, served to ${skill.canaryPercent}% of sessions` : "none"}</dd>
            <dt>Description</dt>
            <dd>{skill.description}</dd>
            <dt>Trigger hints</dt>
            <dd>{skill.triggerHints.join(", ") || "—"}</dd>
            <dt>Boundary</dt>
            <dd>{skill.boundary ?? "—"}</dd>
          </dl>
          {manage && <ChannelControls skill={skill} onChanged={detail.reload} />}
          <Versions skill={skill} />
          <ChannelHistory skill={skill} />
          <Export skill={skill} />
          {manage && <StatusButton skill={skill} onChanged={detail.reload} />}
        </>
      )}
    </>
  );
}

function StatusButton({ skill, onChanged }: { skill: Skill; onChanged: () => void }) {
  const { api } = useSession();
  const mutation = useMutation();
  const next = skill.status === "ACTIVE" ? "DISABLED" : "ACTIVE";
  return (
    <div class="buttons">
      <button
        type="button"
        disabled={mutation.busy}
        onClick={async () => {
          if (await mutation.run(async () => (await api.request(SetStatusDocument, { input: { id: skill.id, status: next } })).setStatus)) onChanged();
        }}
      >
        {next === "ACTIVE" ? "Enable skill" : "Disable skill"}
      </button>
      <FormErrors errors={mutation.errors} fields={[]} />
    </div>
  );
}

function ChannelControls({ skill, onChanged }: { skill: Skill; onChanged: () => void }) {
  const { api } = useSession();
  const production = skill.versions.find((version) => version.version === skill.version);
  const [prompt, setPrompt] = useState(production?.prompt ?? "");
  const [version, setVersion] = useState("");
  const [canary, setCanary] = useState("10");
  const [share, setShare] = useState(String(skill.canaryPercent));
  const [rollbackTo, setRollbackTo] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const publish = useMutation();
  const promote = useMutation();
  const rollback = useMutation();
  const canaryMutation = useMutation();
  useEffect(() => setShare(String(skill.canaryPercent)), [skill.canaryPercent]);
  const earlier = skill.versions.filter((item) => item.version !== skill.version && item.channel !== "CANDIDATE");

  const submitPublish = async (event: Event) => {
    event.preventDefault();
    const payload = await publish.run(
      async () =>
        (
          await api.request(PublishSkillVersionDocument, {
            input: { skillId: skill.id, prompt, version: version || null, canaryPercent: canary === "" ? null : Number(canary) },
          })
        ).publishSkillVersion,
    );
    if (payload?.skillVersion) {
      setNotice(`Version ${payload.skillVersion.version} published as the candidate.`);
      setVersion("");
      onChanged();
    }
  };
  const doPromote = async () => {
    const payload = await promote.run(async () => (await api.request(PromoteSkillCandidateDocument, { input: { skillId: skill.id } })).promoteSkillCandidate);
    if (payload?.skill) {
      setNotice(`Version ${payload.skill.version} is now in production.`);
      onChanged();
    }
  };
  const doRollback = async (event: Event) => {
    event.preventDefault();
    const payload = await rollback.run(
      async () => (await api.request(RollbackSkillDocument, { input: { skillId: skill.id, version: rollbackTo || null } })).rollbackSkill,
    );
    if (payload?.skill) {
      setNotice(`Production rolled back to ${payload.skill.version}.`);
      onChanged();
    }
  };
  const doCanary = async (event: Event) => {
    event.preventDefault();
    const payload = await canaryMutation.run(
      async () => (await api.request(SetSkillCanaryDocument, { input: { skillId: skill.id, canaryPercent: Number(share) } })).setSkillCanary,
    );
    if (payload?.skill) {
      setNotice(`The candidate now serves ${payload.skill.canaryPercent}% of sessions.`);
      onChanged();
    }
  };

  return (
    <section aria-labelledby="channels-title">
      <h2 id="channels-title">Channels</h2>
      {notice && <Notice>{notice}</Notice>}
      <div class="columns">
        <form class="card form" onSubmit={submitPublish} aria-label="Publish a candidate">
          <h3>Publish a candidate</h3>
          <TextAreaField label="Candidate prompt" name="prompt" value={prompt} onInput={setPrompt} errors={publish.errors} rows={8} mono />
          <TextField label="Candidate version" name="version" value={version} onInput={setVersion} errors={publish.errors} hint="Default: the next patch version." />
          <TextField label="Canary share (%)" name="canaryPercent" value={canary} onInput={setCanary} errors={publish.errors} type="number" />
          <FormErrors errors={publish.errors} fields={["prompt", "version", "canaryPercent"]} />
          <button type="submit" disabled={publish.busy}>
            Publish candidate
          </button>
        </form>
        <div>
          {skill.candidateVersion && (
            <div class="card">
              <h3>Candidate {skill.candidateVersion}</h3>
              <button type="button" class="primary" onClick={doPromote} disabled={promote.busy}>
                Promote {skill.candidateVersion} to production
              </button>
              <FormErrors errors={promote.errors} fields={[]} />
              <form class="form" onSubmit={doCanary} aria-label="Canary share">
                <TextField label="Share of sessions (%)" name="canaryPercent" value={share} onInput={setShare} errors={canaryMutation.errors} type="number" />
                <FormErrors errors={canaryMutation.errors} fields={["canaryPercent"]} />
                <button type="submit" disabled={canaryMutation.busy}>
                  Set canary share
                </button>
              </form>
            </div>
          )}
          {earlier.length > 0 && (
            <form class="card form" onSubmit={doRollback} aria-label="Roll back">
              <h3>Roll back production</h3>
              <SelectField
                label="Version to serve"
                name="version"
                value={rollbackTo}
                onChange={setRollbackTo}
                errors={rollback.errors}
                options={[["", "The previous production version"], ...earlier.map((item) => [item.version, `${item.version} (${item.channel})`] as const)]}
              />
              <FormErrors errors={rollback.errors} fields={["version"]} />
              <button type="submit" disabled={rollback.busy}>
                Roll back
              </button>
            </form>
          )}
        </div>
      </div>
    </section>
  );
}

function Versions({ skill }: { skill: Skill }) {
  const versions = skill.versions;
  const latest = versions[versions.length - 1]?.version ?? "";
  const previous = versions.length > 1 ? versions[versions.length - 2].version : latest;
  const [from, setFrom] = useState(previous);
  const [to, setTo] = useState(latest);
  // A new version was published: compare it with the one before.
  useEffect(() => {
    setFrom(previous);
    setTo(latest);
  }, [previous, latest]);
  const before = versions.find((item) => item.version === from)?.prompt ?? "";
  const after = versions.find((item) => item.version === to)?.prompt ?? "";
  const options = versions.map((item) => [item.version, `${item.version} (${item.channel})`] as const);
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <table class="compact">
        <caption class="sr-only">Versions</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Channel</th>
            <th scope="col">Created</th>
            <th scope="col">Characters</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((item) => (
            <tr key={item.version}>
              <td>{item.version}</td>
              <td>
                <Badge tone={statusTone(item.channel)}>{item.channel}</Badge>
              </td>
              <td>{when(item.createdAt)}</td>
              <td>{item.prompt.length}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {versions.length > 1 && (
        <>
          <h3>Diff</h3>
          <div class="filters">
            <SelectField label="From version" name="from" value={from} onChange={setFrom} options={options} />
            <SelectField label="To version" name="to" value={to} onChange={setTo} options={options} />
          </div>
          <pre class="diff" aria-label={`Diff from ${from} to ${to}`} tabIndex={0}>
            {diffLines(before, after).map((line, index) => (
              <div key={index} class={line.kind}>
                <span aria-hidden="true">{line.kind === "added" ? "+ " : line.kind === "removed" ? "- " : "  "}</span>
                <span class="sr-only">{line.kind === "added" ? "added: " : line.kind === "removed" ? "removed: " : ""}</span>
                {line.text}
              </div>
            ))}
          </pre>
        </>
      )}
    </section>
  );
}

function ChannelHistory({ skill }: { skill: Skill }) {
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">Channel history</h2>
      <table class="compact">
        <caption class="sr-only">Channel history</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Action</th>
            <th scope="col">Channel</th>
            <th scope="col">From</th>
            <th scope="col">To</th>
            <th scope="col">Canary</th>
            <th scope="col">By key</th>
          </tr>
        </thead>
        <tbody>
          {skill.channelHistory.map((change, index) => (
            <tr key={index}>
              <td>{when(change.at)}</td>
              <td>{change.action}</td>
              <td>{change.channel}</td>
              <td>{change.fromVersion ?? "—"}</td>
              <td>{change.toVersion ?? "—"}</td>
              <td>{change.canaryPercent === null ? "—" : `${change.canaryPercent}%`}</td>
              <td>
                <code>{change.actor ?? "—"}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Export({ skill }: { skill: Skill }) {
  const { api } = useSession();
  const [version, setVersion] = useState(skill.version);
  const [text, setText] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const exportMd = async () => {
    try {
      const data = await api.request(SkillMdDocument, { id: skill.id, version });
      setText(data.skill?.skillMd ?? null);
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  const download = text ? URL.createObjectURL(new Blob([text], { type: "text/markdown" })) : null;
  useEffect(() => () => (download ? URL.revokeObjectURL(download) : undefined), [download]);
  return (
    <section aria-labelledby="export-title">
      <h2 id="export-title">SKILL.md</h2>
      <div class="filters">
        <SelectField label="Export version" name="exportVersion" value={version} onChange={setVersion} options={skill.versions.map((item) => [item.version, item.version] as const)} />
        <button type="button" onClick={exportMd}>
          Export SKILL.md
        </button>
      </div>
      {problem && <p role="alert">{problem}</p>}
      {text && download && (
        <>
          <a href={download} download={`${skill.name}-SKILL.md`}>
            Download {skill.name}/SKILL.md
          </a>
          <pre class="json" aria-label="SKILL.md" tabIndex={0}>
            {text}
          </pre>
        </>
      )}
    </section>
  );
}

type Match = MatchSkillsQuery["matchSkills"][number];

function MatchPlayground() {
  const { api, viewer } = useSession();
  const spaces = useSpaceOptions();
  const [spaceId, setSpaceId] = useState(viewer.space?.id ?? "");
  const [query, setQuery] = useState("");
  const [matches, setMatches] = useState<Match[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const choices = spaceChoices(spaces.data);
  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(null);
    try {
      setMatches((await api.request(MatchSkillsDocument, { spaceId: spaceId || choices[0]?.[0] || "", query, topK: 10 })).matchSkills);
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  return (
    <section aria-labelledby="match-title">
      <h2 id="match-title">Match playground</h2>
      <form class="card form" onSubmit={submit} role="search" aria-label="Match skills">
        {!viewer.space && <SelectField label="Space" name="spaceId" value={spaceId} onChange={setSpaceId} options={choices} />}
        {!viewer.space && <SpaceOptionsError spaces={spaces} />}
        <Field label="Request" name="query">
          {(props) => <input {...props} value={query} onInput={(event) => setQuery(event.currentTarget.value)} />}
        </Field>
        <button type="submit">Match</button>
      </form>
      {problem && <p role="alert">{problem}</p>}
      {matches && (
        <table>
          <caption>Matches, best first</caption>
          <thead>
            <tr>
              <th scope="col">Skill</th>
              <th scope="col">Score</th>
              <th scope="col">Lexical</th>
              <th scope="col">Semantic</th>
              <th scope="col">Boundary</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {matches.length === 0 && (
              <tr>
                <td colSpan={6}>No skill matches this request.</td>
              </tr>
            )}
            {matches.map((match) => (
              <tr key={match.skill.id}>
                <td>
                  <Link to={`/skills/${encodeURIComponent(match.skill.id)}`}>{match.skill.name}</Link>
                </td>
                <td>{match.score.toFixed(3)}</td>
                <td>{match.lexicalScore.toFixed(3)}</td>
                <td>{match.semanticScore === null ? "—" : match.semanticScore.toFixed(3)}</td>
                <td>{match.boundaryFactor < 1 ? `× ${match.boundaryFactor.toFixed(2)} (touches its boundary)` : "—"}</td>
                <td>{match.reason ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
