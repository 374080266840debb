// Knowledge: bases, their documents, file uploads and a search playground with scores and citations.
import { useState } from "preact/hooks";

import {
  AddDocumentDocument,
  CreateKnowledgeBaseDocument,
  KnowledgeBaseDetailDocument,
  KnowledgeBasesDocument,
  SearchKnowledgeDocument,
  type SearchKnowledgeQuery,
} from "../generated/graphql";
import { href, Link, navigate } from "../router";
import { useSession } from "../session";
import {
  CheckboxGroup,
  EditForm,
  LoadErrors,
  messageOf,
  Notice,
  PageHeader,
  Pager,
  SelectField,
  TextAreaField,
  TextField,
  useCursorPages,
  useLoad,
  useMutation,
  when,
} from "../ui";
import { type SpaceOptions, SpaceOptionsError, SpaceOptionsNote, spaceChoices, useSpaceOptions } from "./tools";

const PAGE_SIZE = 50;
const TEXT_SUFFIXES = [".md", ".markdown", ".txt", ".html", ".htm"];

export function KnowledgePage({ sub }: { sub: string }) {
  if (sub === "new") return <CreateKnowledgeBase />;
  if (sub) return <KnowledgeBaseDetail id={decodeURIComponent(sub)} />;
  return <KnowledgeHome />;
}

function KnowledgeHome() {
  const { api, can, viewer } = useSession();
  const pages = useCursorPages("kbs");
  const bases = useLoad(() => api.request(KnowledgeBasesDocument, { first: PAGE_SIZE, after: pages.after }), [pages.after]);
  // The search playground's Space dropdown (keys without a space): its load fails with the page's.
  const spaces = useSpaceOptions();
  const connection = bases.data?.knowledgeBases;
  return (
    <>
      <PageHeader title="Knowledge">
        {can.manageSome && (
          <Link class="button primary" to="/knowledge/new">
            Create knowledge base
          </Link>
        )}
      </PageHeader>
      <LoadErrors loads={viewer.space ? [bases] : [bases, spaces]} />
      {connection && (
        <>
          <table>
            <caption>Knowledge bases</caption>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Name</th>
                <th scope="col">Space</th>
                <th scope="col">Documents</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {connection.edges.map(({ node }) => (
                <tr key={node.id}>
                  <td>
                    <Link to={`/knowledge/${encodeURIComponent(node.id)}`}>{node.label}</Link>
                  </td>
                  <td>
                    <code>{node.name}</code>
                  </td>
                  <td>{node.space.name}</td>
                  <td>{node.documentCount}</td>
                  <td>{when(node.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {connection.edges.length === 0 && <p class="empty">No knowledge base yet.</p>}
          <Pager label="Knowledge bases" pages={pages} pageSize={PAGE_SIZE} connection={connection} />
          <SearchPlayground spaces={spaces} bases={connection.edges.map(({ node }) => ({ id: node.id, label: node.label, spaceId: node.space.id }))} />
        </>
      )}
    </>
  );
}

function CreateKnowledgeBase() {
  const { api, can, viewer } = useSession();
  const spaces = useSpaceOptions();
  const [spaceId, setSpaceId] = useState(viewer.space?.id ?? "");
  const [name, setName] = useState("");
  const [label, setLabel] = useState("");
  const [description, setDescription] = useState("");
  const mutation = useMutation();
  if (!can.manageSome) return <p>This key cannot create knowledge bases.</p>;
  const submit = async (event: Event) => {
    event.preventDefault();
    const payload = await mutation.run(
      async () =>
        (
          await api.request(CreateKnowledgeBaseDocument, {
            input: { spaceId: spaceId || spaces.data?.[0]?.id || "", name, label, description: description || null },
          })
        ).createKnowledgeBase,
    );
    if (payload?.knowledgeBase) navigate(href(`/knowledge/${encodeURIComponent(payload.knowledgeBase.id)}`));
  };
  return (
    <>
      <PageHeader title="Create knowledge base" />
      <EditForm onSubmit={submit} mutation={mutation} fields={["spaceId", "name", "label", "description"]} submitLabel="Create knowledge base" cancel="/knowledge">
        {can.admin && (
          <SelectField
            label="Space"
            name="spaceId"
            value={spaceId}
            onChange={setSpaceId}
            errors={mutation.errors}
            options={spaceChoices(spaces.data)}
          />
        )}
        {can.admin && <SpaceOptionsError spaces={spaces} />}
        <TextField label="Name" name="name" value={name} onInput={setName} errors={mutation.errors} hint="Unique in the space: ^[a-zA-Z0-9_-]{1,64}$." />
        <TextField label="Label" name="label" value={label} onInput={setLabel} errors={mutation.errors} />
        <TextAreaField label="Description" name="description" value={description} onInput={setDescription} errors={mutation.errors} rows={2} />
      </EditForm>
    </>
  );
}

function KnowledgeBaseDetail({ id }: { id: string }) {
  const { api, can, viewer } = useSession();
  // The base itself, by id, with a page of its documents: one load, whichever page of the bases it
  // is on; Next / Previous page read the base again with the documents' next or previous page.
  const pages = useCursorPages(id);
  const detail = useLoad(
    () => api.request(KnowledgeBaseDetailDocument, { id, first: PAGE_SIZE, after: pages.after }),
    [id, pages.after],
  );
  // The search playground's Space dropdown (keys without a space): its load fails with the page's.
  const spaces = useSpaceOptions();
  const node = detail.data?.node;
  const base = node?.__typename === "KnowledgeBase" ? node : null;
  if (detail.data && !base) {
    return (
      <>
        <PageHeader title="Knowledge base not found" />
        <p>
          No knowledge base <code>{id}</code> is visible to this key. <Link to="/knowledge">Back to Knowledge</Link>
        </p>
      </>
    );
  }
  const list = base?.documents ?? null;
  return (
    <>
      <PageHeader title={base ? `Knowledge base ${base.label}` : "Knowledge base"}>
        <Link class="button" to="/knowledge">
          All knowledge bases
        </Link>
      </PageHeader>
      <LoadErrors loads={viewer.space ? [detail] : [detail, spaces]} />
      {base && (
        <dl class="facts">
          <dt>Name</dt>
          <dd>
            <code>{base.name}</code>
          </dd>
          <dt>Space</dt>
          <dd>{base.space.name}</dd>
          <dt>Description</dt>
          <dd>{base.description ?? "—"}</dd>
        </dl>
      )}
      {base && can.manage(base.space.id) && <Upload knowledgeBaseId={id} onAdded={detail.reload} />}
      {list && (
        <div aria-busy={detail.loading}>
          <table>
            <caption>Documents ({list.totalCount.toLocaleString()})</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Source</th>
                <th scope="col">Chunks</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {list.edges.map(({ node: document }) => (
                <tr key={document.id}>
                  <td>{document.title}</td>
                  <td>{document.source ?? "—"}</td>
                  <td>{document.chunkCount}</td>
                  <td>{when(document.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.totalCount === 0 && <p class="empty">No document yet.</p>}
          <Pager label="Documents" pages={pages} pageSize={PAGE_SIZE} connection={list} />
        </div>
      )}
      {base && <SearchPlayground spaces={spaces} bases={[{ id: base.id, label: base.label, spaceId: base.space.id }]} />}
    </>
  );
}

/** Reads a text file the way `quiver kb ingest` does for Markdown, text and HTML. */
async function readDocument(file: File): Promise<{ title: string; text: string }> {
  const lower = file.name.toLowerCase();
  if (!TEXT_SUFFIXES.some((suffix) => lower.endsWith(suffix))) {
    throw new Error(`${file.name}: only ${TEXT_SUFFIXES.join(" ")} files are read here (PDF: quiver kb ingest).`);
  }
  const raw = await file.text();
  const stem = file.name.replace(/\.[^.]+$/, "");
  if (lower.endsWith(".html") || lower.endsWith(".htm")) {
    const page = new DOMParser().parseFromString(raw, "text/html");
    const blocks: string[] = [];
    page.body.querySelectorAll("h1,h2,h3,h4,h5,h6,p,li,pre,td").forEach((element) => {
      const text = element.textContent?.trim();
      if (!text) return;
      const level = /^H([1-6])$/.exec(element.tagName)?.[1];
      blocks.push(level ? `${"#".repeat(Number(level))} ${text}` : text);
    });
    return { title: page.title.trim() || stem, text: blocks.join("\n\n") };
  }
  const heading = /^ {0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$/m.exec(raw)?.[1];
  return { title: heading?.trim() || stem, text: raw };
}

function Upload({ knowledgeBaseId, onAdded }: { knowledgeBaseId: string; onAdded: () => void }) {
  const { api } = useSession();
  const [outcomes, setOutcomes] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const upload = async (files: FileList | null) => {
    if (!files?.length) return;
    setBusy(true);
    const lines: string[] = [];
    for (const file of Array.from(files)) {
      try {
        const { title, text } = await readDocument(file);
        const payload = (await api.request(AddDocumentDocument, { input: { knowledgeBaseId, title, text, source: file.name } })).addDocument;
        lines.push(
          payload.userErrors.length
            ? `${file.name}: ${payload.userErrors.map((error) => error.message).join(" ")}`
            : `${file.name}: ${payload.outcome?.toLowerCase()}, ${payload.document?.chunkCount} chunks`,
        );
      } catch (error) {
        lines.push(messageOf(error));
      }
    }
    setOutcomes(lines);
    setBusy(false);
    onAdded();
  };
  return (
    <section aria-labelledby="upload-title" class="card">
      <h2 id="upload-title">Upload files</h2>
      <div class="field">
        <label for="upload-files">Files (.md, .txt, .html)</label>
        <input id="upload-files" type="file" multiple accept={TEXT_SUFFIXES.join(",")} disabled={busy} onChange={(event) => upload(event.currentTarget.files)} />
        <p class="hint">The same file name again replaces that document.</p>
      </div>
      {outcomes.length > 0 && (
        <Notice>
          <ul class="plain">
            {outcomes.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </Notice>
      )}
    </section>
  );
}

type Hit = SearchKnowledgeQuery["searchKnowledge"][number];

function SearchPlayground({
  bases,
  spaces,
}: {
  bases: { id: string; label: string; spaceId: string }[];
  /** The page's load of the spaces: a failure is said in the page's LoadErrors. */
  spaces: SpaceOptions;
}) {
  const { api, viewer } = useSession();
  const [spaceId, setSpaceId] = useState(viewer.space?.id ?? bases[0]?.spaceId ?? "");
  const [query, setQuery] = useState("");
  const [topK, setTopK] = useState("5");
  const [selected, setSelected] = useState<string[]>([]);
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const inSpace = bases.filter((base) => base.spaceId === spaceId);
  const search = async (event: Event) => {
    event.preventDefault();
    setProblem(null);
    try {
      const data = await api.request(SearchKnowledgeDocument, {
        spaceId,
        query,
        topK: Number(topK) || 5,
        knowledgeBaseIds: selected.length ? selected.filter((id) => inSpace.some((base) => base.id === id)) : null,
      });
      setHits(data.searchKnowledge);
    } catch (error) {
      setProblem(messageOf(error));
    }
  };
  return (
    <section aria-labelledby="search-title">
      <h2 id="search-title">Search playground</h2>
      <form class="card form" onSubmit={search} role="search" aria-label="Search knowledge">
        {!viewer.space && (
          <SelectField label="Space" name="spaceId" value={spaceId} onChange={setSpaceId} options={spaceChoices(spaces.data)} />
        )}
        {!viewer.space && <SpaceOptionsNote spaces={spaces} />}
        <TextField label="Query" name="query" value={query} onInput={setQuery} />
        <TextField label="Results" name="topK" value={topK} onInput={setTopK} type="number" />
        {inSpace.length > 1 && (
          <CheckboxGroup legend="Only these knowledge bases" name="knowledgeBaseIds" options={inSpace.map((base) => ({ value: base.id, label: base.label }))} selected={selected} onChange={setSelected} />
        )}
        <div class="buttons">
          <button type="submit">Search</button>
        </div>
      </form>
      {problem && (
        <p class="form-errors" role="alert">
          {problem}
        </p>
      )}
      {hits && (
        <ol class="hits" aria-label="Search results">
          {hits.length === 0 && <li>No passage matches.</li>}
          {hits.map((hit) => (
            <li key={`${hit.document.id}-${hit.chunkIndex}`} class="card">
              <p class="hit-meta">
                <span class="score">score {hit.score.toFixed(4)}</span> · <strong>{hit.document.title}</strong>
                {hit.headingPath.length > 0 && <> › {hit.headingPath.join(" › ")}</>}
              </p>
              <blockquote>{hit.text}</blockquote>
              <p class="citation">
                Cite: {hit.document.title}
                {hit.source ? `, ${hit.source}` : ""}, passage {hit.chunkIndex + 1}
              </p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
