// Spaces: the tenants; what each one can see (tools, skills, knowledge bases, agents).
import { useState } from "preact/hooks";

import { CreateSpaceDocument, SpaceDetailDocument, SpacesDocument } from "../generated/graphql";
import { Link, navigate, href } from "../router";
import { useSession } from "../session";
import {
  Badge,
  EditForm,
  LoadError,
  Notice,
  PageHeader,
  Pager,
  TextField,
  useCursorPages,
  useLoad,
  useMutation,
  when,
} from "../ui";

const PAGE_SIZE = 50;

export function SpacesPage({ sub }: { sub: string }) {
  if (sub === "new") return <CreateSpace />;
  if (sub) return <SpaceDetail id={decodeURIComponent(sub)} />;
  return <SpaceList />;
}

function SpaceList() {
  const { api, can } = useSession();
  const pages = useCursorPages("spaces");
  const spaces = useLoad(() => api.request(SpacesDocument, { first: PAGE_SIZE, after: pages.after }), [pages.after]);
  const connection = spaces.data?.spaces;
  return (
    <>
      <PageHeader title="Spaces">
        {can.admin && (
          <Link class="button primary" to="/spaces/new">
            Create space
          </Link>
        )}
      </PageHeader>
      <LoadError error={spaces.error} retry={spaces.reload} />
      {connection && (
        <>
          <table>
            <caption class="sr-only">Spaces</caption>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {connection.edges.map(({ node }) => (
                <tr key={node.id}>
                  <td>
                    <Link to={`/spaces/${encodeURIComponent(node.id)}`}>{node.label}</Link>{" "}
                    {node.isSystem && <Badge>system</Badge>}
                  </td>
                  <td>
                    <code>{node.name}</code>
                  </td>
                  <td>
                    <code>{node.id}</code>
                  </td>
                  <td>{when(node.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Spaces" pages={pages} pageSize={PAGE_SIZE} connection={connection} />
        </>
      )}
    </>
  );
}

function CreateSpace() {
  const { api, can } = useSession();
  const [name, setName] = useState("");
  const [label, setLabel] = useState("");
  const mutation = useMutation();
  if (!can.admin) return <p>Only ADMIN keys create spaces.</p>;
  const submit = async (event: Event) => {
    event.preventDefault();
    const payload = await mutation.run(async () => (await api.request(CreateSpaceDocument, { input: { name, label } })).createSpace);
    if (payload?.space) navigate(href(`/spaces/${encodeURIComponent(payload.space.id)}?created=1`));
  };
  return (
    <>
      <PageHeader title="Create space" />
      <EditForm onSubmit={submit} mutation={mutation} fields={["name", "label"]} submitLabel="Create space" cancel="/spaces">
        <TextField
          label="Name"
          name="name"
          value={name}
          onInput={setName}
          errors={mutation.errors}
          hint="Unique machine name: 1-64 of a-z, 0-9, '_' and '-'."
          required
        />
        <TextField label="Label" name="label" value={label} onInput={setLabel} errors={mutation.errors} hint="Display name for people." required />
      </EditForm>
    </>
  );
}

function SpaceDetail({ id }: { id: string }) {
  const { api } = useSession();
  const detail = useLoad(() => api.request(SpaceDetailDocument, { id }), [id]);
  const space = detail.data?.space;
  const created = new URLSearchParams(window.location.search).has("created");
  if (detail.data && !space) {
    return (
      <>
        <PageHeader title="Space not found" />
        <p>
          No space <code>{id}</code> is visible to this key. <Link to="/spaces">Back to Spaces</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <PageHeader title={space ? `Space ${space.label}` : "Space"}>
        <Link class="button" to="/spaces">
          All spaces
        </Link>
      </PageHeader>
      <LoadError error={detail.error} retry={detail.reload} />
      {created && space && <Notice>Space {space.name} created.</Notice>}
      {space && (
        <>
          <dl class="facts">
            <dt>Name</dt>
            <dd>
              <code>{space.name}</code>
            </dd>
            <dt>Id</dt>
            <dd>
              <code>{space.id}</code>
            </dd>
            <dt>Created</dt>
            <dd>{when(space.createdAt)}</dd>
          </dl>
          <h2>What this space can see</h2>
          <div class="columns">
            <section aria-labelledby="visible-tools">
              <h3 id="visible-tools">Tools ({space.visibleTools.totalCount})</h3>
              <ul class="plain">
                {space.visibleTools.edges.map(({ node }) => (
                  <li key={node.id}>
                    <Link to={`/tools/${encodeURIComponent(node.id)}`}>{node.name}</Link> <Badge>{node.type}</Badge>{" "}
                    <Badge tone={node.isGlobal ? "plain" : "busy"}>{node.isGlobal ? "global" : "bound"}</Badge>
                  </li>
                ))}
              </ul>
              {space.visibleTools.totalCount > space.visibleTools.edges.length && (
                <Link to={`/tools?space=${encodeURIComponent(space.id)}`}>All {space.visibleTools.totalCount} tools</Link>
              )}
            </section>
            <section aria-labelledby="visible-skills">
              <h3 id="visible-skills">Skills ({space.skills.totalCount})</h3>
              <ul class="plain">
                {space.skills.edges.map(({ node }) => (
                  <li key={node.id}>
                    <Link to={`/skills/${encodeURIComponent(node.id)}`}>{node.name}</Link> <span class="muted">{node.version}</span>{" "}
                    {!node.space && <Badge>global</Badge>}
                  </li>
                ))}
              </ul>
            </section>
            <section aria-labelledby="visible-kbs">
              <h3 id="visible-kbs">Knowledge bases ({space.knowledgeBases.totalCount})</h3>
              <ul class="plain">
                {space.knowledgeBases.edges.map(({ node }) => (
                  <li key={node.id}>
                    <Link to={`/knowledge/${encodeURIComponent(node.id)}`}>{node.label}</Link>{" "}
                    <span class="muted">{node.documentCount} documents</span>
                  </li>
                ))}
              </ul>
            </section>
            <section aria-labelledby="visible-agents">
              <h3 id="visible-agents">Agents ({space.agents.totalCount})</h3>
              <ul class="plain">
                {space.agents.edges.map(({ node }) => (
                  <li key={node.id}>
                    <Link to={`/agents/${encodeURIComponent(node.id)}`}>{node.name}</Link> <span class="muted">{node.model}</span>
                  </li>
                ))}
              </ul>
            </section>
          </div>
        </>
      )}
    </>
  );
}
