from tests.conftest import GraphQLClient


class TestViewer:
    async def test_admin_key_sees_admin_role(self, gql: GraphQLClient) -> None:
        data = await gql.execute("query Viewer { viewer { roles space { id } } }")
        assert data == {"viewer": {"roles": ["ADMIN"], "space": None}}
